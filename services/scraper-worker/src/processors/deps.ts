import type { Logger, ThreadPool } from '@gleaner/platform';
import type { QueueProducer, RenderJob, RenderResult } from '@gleaner/queues';
import type { LlmKeyStore, RenderedPageStore, ResultCache, UsageCounters } from '@gleaner/store';
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
  /** Pages to render go to the browser-worker on this queue; their HTML comes back through the store. */
  renders: QueueProducer<RenderJob, RenderResult>;
  renderedPages: RenderedPageStore;
  /**
   * Why this process runs no browser-worker beside it (`pnpm start` on a machine without
   * Chromium): named in the E008 of a page to render when no browser-worker runs anywhere.
   */
  noBrowserHere?: string;
}
