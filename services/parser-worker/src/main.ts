import { createLogger, exitOnBootFailure, exitOnSignals } from '@gleaner/platform';
import { loadParserWorkerConfig } from './config.js';
import { startParserWorker } from './service.js';

// A bad configuration (or anything else that stops the boot) ends the process with one line.
try {
  const config = loadParserWorkerConfig();
  const logger = createLogger('parser-worker', config.LOG_LEVEL);
  const service = await startParserWorker(config, logger);
  exitOnSignals(service.stop, logger);
} catch (err) {
  exitOnBootFailure('parser-worker', err);
}
