import { createLogger, exitOnSignals } from '@gleaner/platform';
import { loadWebhookDispatcherConfig } from './config.js';
import { startWebhookDispatcher } from './service.js';

const config = loadWebhookDispatcherConfig();
const logger = createLogger('webhook-dispatcher', config.LOG_LEVEL);
const service = await startWebhookDispatcher(config, logger);
exitOnSignals(service.stop, logger);
