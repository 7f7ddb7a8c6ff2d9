import { createLogger, exitOnBootFailure, exitOnSignals } from '@gleaner/platform';
import { loadWebhookDispatcherConfig } from './config.js';
import { startWebhookDispatcher } from './service.js';

// A bad configuration (or anything else that stops the boot) ends the process with one line.
try {
  const config = loadWebhookDispatcherConfig();
  const logger = createLogger('webhook-dispatcher', config.LOG_LEVEL);
  const service = await startWebhookDispatcher(config, logger);
  exitOnSignals(service.stop, logger);
} catch (err) {
  exitOnBootFailure('webhook-dispatcher', err);
}
