import type { createRedis } from '@gleaner/platform';
import type { CrawlJob, QueueProducer } from '@gleaner/queues';
import type { CrawlState, RequestRecordStore } from '@gleaner/store';
import type { ScrapeProcessorDeps } from '../processors/deps.js';

/** What crawls, batches and maps use beyond a scrape's dependencies. */
export interface CrawlDeps extends ScrapeProcessorDeps {
  records: RequestRecordStore;
  crawls: CrawlState;
  /** Queues a crawl's next slice. */
  slices: QueueProducer<CrawlJob, unknown>;
  /** The service's own connection (a slice waiting for its crawl's lease is deferred on it). */
  redis: ReturnType<typeof createRedis>;
  /** True once the service is shutting down: running slices end early and hand over to the next. */
  stopping: () => boolean;
}
