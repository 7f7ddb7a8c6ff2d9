import { runServiceProcess } from '@gleaner/platform';
import { loadParserWorkerConfig } from './config.js';
import { startParserWorker } from './service.js';

await runServiceProcess('parser-worker', loadParserWorkerConfig, startParserWorker);
