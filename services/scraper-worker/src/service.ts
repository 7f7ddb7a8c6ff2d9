import { createLogger, createRedis, ThreadPool, type Logger } from '@gleaner/platform';
import { QueueProducer, renderQueue, scrapeQueue, scrapeV1Queue, webhookQueue } from '@gleaner/queues';
import { createStores, type RecordError } from '@gleaner/store';
import { recordFailedForGood, serveWorkerService, WorkerRegistry, type RecordedJobContext, type RunningService } from '@gleaner/worker-runtime';
import type { ScraperWorkerConfig } from './config.js';
import { createScrapeProcessor } from './processors/scrape.js';
import { createScrapeV1Processor } from './processors/scrape-v1.js';
import type { ScrapeProcessorDeps } from './processors/deps.js';

/** Re-exported: callers of start…() name the handle they get back. */
export type { RunningService } from '@gleaner/worker-runtime';

const STALLED: Record<'scrape' | 'scrape-v1', RecordError> = {
  scrape: { code: 'E008', message: 'processing failed repeatedly (worker crashed)' },
  'scrape-v1': { code: '500', message: 'processing failed repeatedly (worker crashed)' },
};

export async function startScraperWorker(config: ScraperWorkerConfig, logger: Logger = createLogger('scraper-worker', config.LOG_LEVEL)): Promise<RunningService> {
  const redis = createRedis(config.REDIS_URL, 'worker', 'scraper-worker');
  const connection = { redisUrl: config.REDIS_URL, prefix: config.GLEANER_REDIS_PREFIX };
  const stores = createStores(redis, config.GLEANER_REDIS_PREFIX, config.GLEANER_SECRET);
  const webhooks = new QueueProducer(webhookQueue, connection);
  const jobs: RecordedJobContext = {
    records: stores.records,
    subscriptions: stores.subscriptions,
    webhooks,
    logger,
    includeTraces: config.NODE_ENV === 'development',
    unexpectedError: (err) => ({ code: 'E008', message: `processing failed: ${err.message}` }),
  };
  const extractPool = new ThreadPool({ entry: new URL('./extract-thread.ts', import.meta.url), size: config.SCRAPER_EXTRACT_THREADS, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
  // Jobs are taken only once extraction can run: a fresh thread loads jsdom for seconds, and a
  // job taken meanwhile would wait while another worker sits idle.
  await extractPool.whenLoaded();
  const renders = new QueueProducer(renderQueue, connection);
  const deps: ScrapeProcessorDeps = { config, logger, jobs, extractPool, cache: stores.cache, llmKeys: stores.llmKeys, usage: stores.usage, renders, renderedPages: stores.renderedPages };

  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  registry.register(scrapeQueue, createScrapeProcessor(deps), {
    concurrency: config.SCRAPER_CONCURRENCY,
    onFailedForGood: (job) => recordFailedForGood('scrape', String(job.id), jobs, STALLED.scrape),
  });
  registry.register(scrapeV1Queue, createScrapeV1Processor(deps), {
    concurrency: config.SCRAPER_CONCURRENCY,
    onFailedForGood: (job) => recordFailedForGood('scrape-v1', String(job.id), jobs, STALLED['scrape-v1']),
  });
  return serveWorkerService({ name: 'scraper-worker',
    registry,
    redis,
    config,
    logger,
    resources: [
      { name: 'threads', run: () => extractPool.close() },
      { name: 'webhook producer', run: () => webhooks.close() },
      { name: 'render producer', run: () => renders.close() },
    ],
  });
}
