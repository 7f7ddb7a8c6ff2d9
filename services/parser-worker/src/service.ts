import { createDocumentStore, prepareDocumentStore } from '@gleaner/object-store';
import { createLogger, createRedis, deploymentRedis, type Logger } from '@gleaner/platform';
import { parseQueue, QueueProducer, webhookQueue } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { accountCapFrom, recordFailedForGood, serveWorkerService, WorkerRegistry, type RecordedJobContext, type RunningService, jobLockHolder } from '@gleaner/worker-runtime';
import type { ParserWorkerConfig } from './config.js';
import { createParsePool, createSharedOcrEngine, ocrShare } from './parse-pool.js';
import { createParseProcessor } from './processors/parse.js';
import { startUploadSweep } from './upload-sweep.js';

/** Re-exported: callers of start…() name the handle they get back. */
export type { RunningService } from '@gleaner/worker-runtime';

export async function startParserWorker(config: ParserWorkerConfig, logger: Logger = createLogger('parser-worker', config.LOG_LEVEL)): Promise<RunningService> {
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'worker', 'parser-worker', logger);
  const stores = createStores(redis, connection.prefix, config.GLEANER_SECRET);
  const webhooks = new QueueProducer(webhookQueue, connection);
  const documents = createDocumentStore(config);
  await prepareDocumentStore(documents, (message) => logger.warn(message));
  const jobs: RecordedJobContext = {
    records: stores.records,
    subscriptions: stores.subscriptions,
    webhooks,
    logger,
    includeTraces: false,
    unexpectedError: (err) => ({ code: '500-001', message: 'Processing error', details: [err.message] }),
    holdsJob: jobLockHolder(redis),
  };
  const ocr = createSharedOcrEngine({
    workers: config.PARSER_OCR_WORKERS,
    memoryMarkMb: config.PARSER_MEMORY_MARK_MB,
    onWorkerEvent: (event) => logger.debug(`OCR worker ${event.type}`, event),
  });
  // One thread per concurrent job: beside a slow OCR document, PARSER_CONCURRENCY - 1 others run.
  const parsePool = createParsePool(config.PARSER_CONCURRENCY, ocr);
  // Jobs are taken only once the parse threads have loaded (pdf.js, mammoth: seconds when fresh).
  await parsePool.whenLoaded();
  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  registry.register(
    parseQueue,
    createParseProcessor({ jobs, records: stores.records, parsePool, ocrParallelism: ocrShare(ocr.parallelism, config.PARSER_CONCURRENCY), allowPrivateNetworks: config.GLEANER_ALLOW_PRIVATE_NETWORKS, documents, budgetMs: config.PARSER_JOB_BUDGET_MS, pageBudgetMs: config.PARSER_PAGE_BUDGET_MS, downloadDeadlineMs: config.PARSER_DOWNLOAD_TIMEOUT_MS, logger }),
    {
      concurrency: config.PARSER_CONCURRENCY,
      accountCap: accountCapFrom(config.ACCOUNT_MAX_CONCURRENT_JOBS, config.PARSER_CONCURRENCY),
      onFailedForGood: (job) => recordFailedForGood('parse', String(job.id), jobs, { code: '500-001', message: 'Processing error', details: ['processing failed repeatedly (worker crashed)'] }),
    },
  );
  const sweep = startUploadSweep({ redis, prefix: connection.prefix, documents, records: stores.records, logger, intervalMs: config.DOCUMENT_STORE_SWEEP_INTERVAL_MS });
  return serveWorkerService({
    name: 'parser-worker',
    registry,
    redis,
    config,
    logger,
    resources: [
      { name: 'upload sweep', run: () => sweep.stop() },
      { name: 'threads', run: () => parsePool.close() },
      { name: 'OCR workers', run: () => ocr.close() },
      { name: 'webhook producer', run: () => webhooks.close() },
      { name: 'document store', run: () => documents.close() },
    ],
  });
}
