import { createLogger, createRedis, deploymentRedis, webhookDeliveries, type Logger } from '@gleaner/platform';
import { webhookQueue, type WebhookJob } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { accountCapFrom, serveWorkerService, WorkerRegistry, type RunningService } from '@gleaner/worker-runtime';
import { webhookBackoffDelay } from './backoff.js';
import type { WebhookDispatcherConfig } from './config.js';
import { createDeliveryProcessor, deliveryStateOf, withDeliveryState } from './deliver.js';

/** Re-exported: callers of start…() name the handle they get back. */
export type { RunningService } from '@gleaner/worker-runtime';

export async function startWebhookDispatcher(config: WebhookDispatcherConfig, logger: Logger = createLogger('webhook-dispatcher', config.LOG_LEVEL)): Promise<RunningService> {
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'worker', 'webhook-dispatcher', logger);
  const stores = createStores(redis, connection.prefix, config.GLEANER_SECRET);
  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  registry.register(
    webhookQueue,
    createDeliveryProcessor({ records: stores.records, accounts: stores.accounts, subscriptions: stores.subscriptions, crawls: stores.crawls, logger, timeoutMs: config.WEBHOOK_TIMEOUT_MS, allowPrivateNetworks: config.GLEANER_ALLOW_PRIVATE_NETWORKS }),
    {
      concurrency: config.WEBHOOK_CONCURRENCY,
      // Fair sharing (issue 24): an account whose receivers hang must not hold every delivery slot
      // for WEBHOOK_TIMEOUT_MS at a time. A delivery over its account's cap waits as a delayed job,
      // without an attempt or a start counted, so X-Webhook-Attempt still numbers real sends.
      accountCap: accountCapFrom(config.ACCOUNT_MAX_CONCURRENT_JOBS, config.WEBHOOK_CONCURRENCY),
      settings: { backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) => webhookBackoffDelay(attemptsMade, config.WEBHOOK_BACKOFF_BASE_MS, err) },
      onFailedForGood: async (job, err, cause) => {
        const { family, requestId, url, subscriptionId } = job.data as WebhookJob;
        // Attempts started, as the processor numbers them (a stalled run advances only attemptsStarted).
        const attempts = Math.max(job.attemptsStarted ?? 0, job.attemptsMade);
        logger.warn('webhook delivery failed for good', { requestId, deliveryId: job.id, subscriptionId, attempts, error: err.message });
        // Every attempt the processor ran has counted and recorded its own outcome; a delivery
        // that kept killing its dispatcher never finished one.
        if (cause !== 'stalled' || (job.data as WebhookJob).crawlEvent?.kind === 'page') return;
        webhookDeliveries.inc({ family, outcome: 'failed' });
        await stores.records.update(family, requestId, (r) =>
          deliveryStateOf(r, subscriptionId)?.status === 'delivered' ? r : withDeliveryState(r, subscriptionId, { url, status: 'failed', attempts, lastError: err.message }),
        );
      },
    },
  );
  return serveWorkerService({ name: 'webhook-dispatcher', registry, redis, config, logger });
}
