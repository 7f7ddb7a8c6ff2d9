import { createLogger, exitOnSignals } from '@gleaner/platform';
import { loadBotConnectorConfig } from './config.js';
import { startBotConnector } from './service.js';

const config = loadBotConnectorConfig();
const logger = createLogger('bot-connector', config.LOG_LEVEL);
const service = await startBotConnector(config, logger);
exitOnSignals(service.stop, logger);
