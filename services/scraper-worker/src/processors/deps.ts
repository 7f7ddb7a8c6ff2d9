import type { Logger, ThreadPool } from '@gleaner/platform';
import type { LlmKeyStore, ResultCache, UsageCounters } from '@gleaner/store';
import type { RecordedJobContext } from '@gleaner/worker-runtime';
import type { ScraperWorkerConfig } from '../config.js';

export interface ScrapeProcessorDeps {
  config: ScraperWorkerConfig;
  logger: Logger;
  jobs: RecordedJobContext;
  extractPool: ThreadPool;
  cache: ResultCache;
  llmKeys: LlmKeyStore;
  usage: UsageCounters;
}
