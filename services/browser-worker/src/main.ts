import { runServiceProcess } from '@gleaner/platform';
import { loadBrowserWorkerConfig } from './config.js';
import { startBrowserWorker } from './service.js';

await runServiceProcess('browser-worker', loadBrowserWorkerConfig, startBrowserWorker);
