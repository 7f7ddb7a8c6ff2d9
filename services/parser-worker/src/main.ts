import { createLogger, exitOnSignals } from '@gleaner/platform';
import { loadParserWorkerConfig } from './config.js';
import { startParserWorker } from './service.js';

const config = loadParserWorkerConfig();
const logger = createLogger('parser-worker', config.LOG_LEVEL);
const service = await startParserWorker(config, logger);
exitOnSignals(service.stop, logger);
