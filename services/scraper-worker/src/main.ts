import { runServiceProcess } from '@gleaner/platform';
import { loadScraperWorkerConfig } from './config.js';
import { startScraperWorker } from './service.js';

await runServiceProcess('scraper-worker', loadScraperWorkerConfig, startScraperWorker);
