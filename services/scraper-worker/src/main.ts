import { createLogger, exitOnBootFailure, exitOnSignals } from '@gleaner/platform';
import { loadScraperWorkerConfig } from './config.js';
import { startScraperWorker } from './service.js';

// A bad configuration (or anything else that stops the boot) ends the process with one line.
try {
  const config = loadScraperWorkerConfig();
  const logger = createLogger('scraper-worker', config.LOG_LEVEL);
  const service = await startScraperWorker(config, logger);
  exitOnSignals(service.stop, logger);
} catch (err) {
  exitOnBootFailure('scraper-worker', err);
}
