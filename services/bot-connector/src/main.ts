import { createLogger, exitOnBootFailure, exitOnSignals } from '@gleaner/platform';
import { loadBotConnectorConfig } from './config.js';
import { startBotConnector } from './service.js';

// A bad configuration (or anything else that stops the boot) ends the process with one line.
try {
  const config = loadBotConnectorConfig();
  const logger = createLogger('bot-connector', config.LOG_LEVEL);
  const service = await startBotConnector(config, logger);
  exitOnSignals(service.stop, logger);
} catch (err) {
  exitOnBootFailure('bot-connector', err);
}
