import { createLogger, createRedis, deploymentRedis, ThreadPool, type Logger } from '@gleaner/platform';
import { crawlQueue, mapQueue, QueueProducer, renderQueue, scrapeQueue, scrapeV1Queue, webhookQueue, type CrawlJob } from '@gleaner/queues';
import { createStores, type RecordError } from '@gleaner/store';
import { accountCapFrom, defaultAccountCap, jobLockHolder, recordFailedForGood, serveWorkerService, WorkerRegistry, type RecordedJobContext, type RunningService } from '@gleaner/worker-runtime';
import type { ScraperWorkerConfig } from './config.js';
import { createScrapeProcessor } from './processors/scrape.js';
import { createScrapeV1Processor } from './processors/scrape-v1.js';
import type { ScrapeProcessorDeps } from './processors/deps.js';
import type { CrawlDeps } from './crawl/crawl-deps.js';
import { endCrawl } from './crawl/crawl-ending.js';
import { createCrawlProcessor } from './crawl/crawl-slice.js';
import { createMapProcessor } from './crawl/map-processor.js';

/** Re-exported: callers of start…() name the handle they get back. */
export type { RunningService } from '@gleaner/worker-runtime';

const STALLED: Record<'scrape' | 'scrape-v1', RecordError> = {
  scrape: { code: 'E008', message: 'processing failed repeatedly (worker crashed)' },
  'scrape-v1': { code: '500', message: 'processing failed repeatedly (worker crashed)' },
};

export interface ScraperWorkerOptions {
  /** Why no browser-worker runs beside this one (see ScrapeProcessorDeps.noBrowserHere). */
  noBrowserHere?: string;
}

export async function startScraperWorker(config: ScraperWorkerConfig, logger: Logger = createLogger('scraper-worker', config.LOG_LEVEL), options: ScraperWorkerOptions = {}): Promise<RunningService> {
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'worker', 'scraper-worker', logger);
  const stores = createStores(redis, connection.prefix, config.GLEANER_SECRET);
  const webhooks = new QueueProducer(webhookQueue, connection);
  const jobs: RecordedJobContext = {
    records: stores.records,
    subscriptions: stores.subscriptions,
    webhooks,
    logger,
    includeTraces: config.NODE_ENV === 'development',
    unexpectedError: (err) => ({ code: 'E008', message: `processing failed: ${err.message}` }),
    holdsJob: jobLockHolder(redis),
  };
  // Both families count against one share per account: they use the same slots and threads.
  const accountCap = accountCapFrom(config.ACCOUNT_MAX_CONCURRENT_JOBS, config.SCRAPER_CONCURRENCY, 'scraper');
  // Under a cap below the concurrency an account may also hold only half of the extraction
  // threads: four 9 MB pages of one account would otherwise keep every thread busy while another
  // account's small page waits behind them in the pool's queue (issue 24: 77 s).
  const extractPool = new ThreadPool({
    entry: new URL('./extract-thread.ts', import.meta.url),
    size: config.SCRAPER_EXTRACT_THREADS,
    resourceLimits: { maxOldGenerationSizeMb: 1024 },
    ...(accountCap && accountCap.max < config.SCRAPER_CONCURRENCY ? { maxThreadsPerOwner: Math.max(1, Math.floor(config.SCRAPER_EXTRACT_THREADS / 2)) } : {}),
  });
  // Jobs are taken only once extraction can run: a fresh thread loads jsdom for seconds, and a
  // job taken meanwhile would wait while another worker sits idle.
  await extractPool.whenLoaded();
  const renders = new QueueProducer(renderQueue, connection);
  const deps: ScrapeProcessorDeps = { config, logger, jobs, extractPool, cache: stores.cache, llmKeys: stores.llmKeys, usage: stores.usage, renders, renderedPages: stores.renderedPages, noBrowserHere: options.noBrowserHere };
  const slices = new QueueProducer(crawlQueue, connection);
  // A deploy or scale-down ends running slices within their drain, not their 30 s.
  const crawlDeps: CrawlDeps = { ...deps, records: stores.records, crawls: stores.crawls, slices, redis, stopping: () => !registry.isRunning() };

  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  registry.register(scrapeQueue, createScrapeProcessor(deps), {
    concurrency: config.SCRAPER_CONCURRENCY,
    accountCap,
    onFailedForGood: (job) => recordFailedForGood('scrape', String(job.id), jobs, STALLED.scrape),
  });
  registry.register(scrapeV1Queue, createScrapeV1Processor(deps), {
    concurrency: config.SCRAPER_CONCURRENCY,
    accountCap,
    onFailedForGood: (job) => recordFailedForGood('scrape-v1', String(job.id), jobs, STALLED['scrape-v1']),
  });
  // Crawls and batches take turns by slices; an account runs at most half of a process's crawl
  // slots at once (fair sharing), whatever ACCOUNT_MAX_CONCURRENT_JOBS says of single scrapes, and
  // its pages' extraction counts against its share of the threads like its scrapes.
  registry.register(crawlQueue, createCrawlProcessor(crawlDeps), {
    concurrency: config.CRAWL_CONCURRENCY,
    accountCap: { max: defaultAccountCap(config.CRAWL_CONCURRENCY), group: 'crawl' },
    onFailedForGood: async (job, err) => {
      const { requestId, family } = job.data as CrawlJob;
      await endCrawl(crawlDeps, family, requestId, { status: 'failed', error: { code: 'E008', message: `the ${family} failed: ${err.message}` } });
    },
  });
  registry.register(mapQueue, createMapProcessor(crawlDeps), {
    concurrency: config.CRAWL_CONCURRENCY,
    accountCap: { max: defaultAccountCap(config.CRAWL_CONCURRENCY), group: 'map' },
    onFailedForGood: (job) => recordFailedForGood('map', String(job.id), jobs, STALLED.scrape),
  });
  return serveWorkerService({
    name: 'scraper-worker',
    registry,
    redis,
    config,
    logger,
    resources: [
      { name: 'threads', run: () => extractPool.close() },
      { name: 'webhook producer', run: () => webhooks.close() },
      { name: 'render producer', run: () => renders.close() },
      { name: 'crawl slice producer', run: () => slices.close() },
    ],
  });
}
