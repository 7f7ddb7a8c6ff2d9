import { createLogger, exitOnSignals } from '@gleaner/platform';
import { loadScraperWorkerConfig } from './config.js';
import { startScraperWorker } from './service.js';

const config = loadScraperWorkerConfig();
const logger = createLogger('scraper-worker', config.LOG_LEVEL);
const service = await startScraperWorker(config, logger);
exitOnSignals(service.stop, logger);
