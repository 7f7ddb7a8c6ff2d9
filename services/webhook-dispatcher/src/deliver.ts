import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { FetchError, postJson, signWebhook } from '@gleaner/safe-fetch';
import { webhookDeliveries, type Logger } from '@gleaner/platform';
import type { WebhookJob } from '@gleaner/queues';
import type { AccountStore, CrawlState, RequestRecord, RequestRecordStore, WebhookDeliveryState, WebhookSubscriptionStore } from '@gleaner/store';
import { RetryableDeliveryError } from './backoff.js';
import { deliveryBody, WEBHOOK_USER_AGENT } from './webhook-body.js';

export interface DeliveryDeps {
  records: RequestRecordStore;
  accounts: AccountStore;
  subscriptions: WebhookSubscriptionStore;
  crawls: CrawlState;
  logger: Logger;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/**
 * How one attempt ended, as counted in `gleaner_webhook_deliveries_total`: every delivery ends
 * exactly once as `delivered`, `rejected` (an answer or address that retrying cannot fix) or
 * `failed` (its last attempt failed, or it could not be sent at all); each attempt that will be
 * tried again counts once as `retry`.
 */
export type DeliveryOutcome = 'delivered' | 'retry' | 'rejected' | 'failed';

/** The delivery state a record keeps for one target: its own webhook, or one subscription. */
export function deliveryStateOf(record: RequestRecord, subscriptionId?: string): WebhookDeliveryState | undefined {
  return subscriptionId ? record.subscriptionDeliveries?.[subscriptionId] : record.webhook;
}

export function withDeliveryState(record: RequestRecord, subscriptionId: string | undefined, state: WebhookDeliveryState): RequestRecord {
  if (!subscriptionId) return { ...record, webhook: state };
  return { ...record, subscriptionDeliveries: { ...record.subscriptionDeliveries, [subscriptionId]: state } };
}

/**
 * The number this attempt is sent and recorded with (`X-Webhook-Attempt`): every start of the
 * job counts. A job re-run after its dispatcher died (stalled) keeps its `attemptsMade`, so
 * `attemptsMade + 1` would repeat the number of the attempt that was cut off; BullMQ's
 * `attemptsStarted` is incremented each time the job becomes active, this run included. A run
 * deferred before sending (its account at its cap, its process isolating a crash) takes its start
 * back (worker-runtime's deferJob), so the numbers stay 1, 2, 3… over real sends.
 */
export function attemptNumber(job: Pick<Job, 'attemptsMade' | 'attemptsStarted'>): number {
  return Math.max(job.attemptsStarted ?? 0, job.attemptsMade + 1);
}

/**
 * One delivery attempt: POST the family's body, signed `t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>`
 * with the account's current secret. 2xx delivers; 429, 5xx, timeouts and network errors retry;
 * any other answer ends the delivery at once. Every attempt is counted and written into the
 * request record before the job ends, so the failed-for-good hook only sees jobs that stalled.
 */
export function createDeliveryProcessor(deps: DeliveryDeps) {
  return async (payload: WebhookJob, job: Job): Promise<{ statusCode: number; attempts: number }> => {
    const attempt = attemptNumber(job);
    // Whether BullMQ will retry after this attempt fails: it decides by attemptsMade (failed
    // attempts), which a stalled run does not advance, so this is not `attempt >= attempts`.
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const { family } = payload;
    // A crawl's page notices are many: their attempts are not written into the crawl's record
    // (only its end notice's are), and they are told apart by X-Webhook-Delivery.
    const recorded = payload.crawlEvent?.kind !== 'page';
    const log = deps.logger.child({ requestId: payload.requestId, deliveryId: payload.deliveryId, subscriptionId: payload.subscriptionId, attempt });
    /** Records the attempt's outcome, then counts it (a write that fails is counted by the caller). */
    const note = async (outcome: DeliveryOutcome, lastError?: string) => {
      const status = outcome === 'retry' ? 'pending' : outcome === 'delivered' ? 'delivered' : 'failed';
      const state: WebhookDeliveryState = { url: payload.url, status, attempts: attempt, ...(lastError ? { lastError } : {}), ...(outcome === 'delivered' ? { deliveredAt: Math.floor(Date.now() / 1000) } : {}) };
      if (recorded) await deps.records.update(family, payload.requestId, (r) => withDeliveryState(r, payload.subscriptionId, state));
      webhookDeliveries.inc({ family, outcome });
    };

    try {
      const [record, secret] = await Promise.all([deps.records.get(family, payload.requestId), deps.accounts.webhookSecret(payload.accountId)]);
      if (!record || !secret) {
        webhookDeliveries.inc({ family, outcome: 'failed' });
        log.warn('webhook dropped: request record or account no longer exists', { outcome: 'failed' });
        throw new UnrecoverableError('request record or account no longer exists');
      }
      const previous = recorded ? deliveryStateOf(record, payload.subscriptionId) : undefined;
      if (previous?.status === 'delivered') {
        // An attempt that reached the receiver but lost its job lock (a Redis outage), or a
        // delivery job queued again, runs again: the record says it arrived, so the receiver is
        // not sent a duplicate.
        log.info('webhook already delivered, not sending again', { outcome: 'duplicate-skipped' });
        return { statusCode: 200, attempts: previous.attempts };
      }
      const body = await deliveryBody(payload, record, deps.crawls);
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT[family],
        'X-Request-ID': payload.requestId,
        'X-Webhook-Delivery': payload.deliveryId,
        'X-Webhook-Attempt': String(attempt),
        'X-Webhook-Signature': signWebhook(secret, body, timestamp),
      };

      let answer;
      try {
        answer = await postJson(payload.url, body, { headers, timeoutMs: deps.timeoutMs, allowPrivateNetworks: deps.allowPrivateNetworks });
      } catch (err) {
        const reason = err instanceof FetchError ? `${err.kind}: ${err.message}` : (err as Error).message;
        if (err instanceof FetchError && (err.kind === 'blocked_address' || err.kind === 'invalid_url')) {
          await note('rejected', reason);
          log.warn('webhook refused', { outcome: 'rejected', reason });
          throw new UnrecoverableError(reason);
        }
        await note(lastAttempt ? 'failed' : 'retry', reason);
        log.warn('webhook attempt failed', { outcome: lastAttempt ? 'failed' : 'retry', reason });
        throw new RetryableDeliveryError(reason);
      }
      if (answer.statusCode >= 200 && answer.statusCode < 300) {
        await note('delivered');
        if (payload.subscriptionId) await deps.subscriptions.noteReached(payload.accountId, payload.subscriptionId).catch(() => undefined);
        log.info('webhook delivered', { outcome: 'delivered', statusCode: answer.statusCode, attempts: attempt });
        return { statusCode: answer.statusCode, attempts: attempt };
      }
      const reason = `receiver answered HTTP ${answer.statusCode}`;
      if (answer.statusCode === 429 || answer.statusCode >= 500) {
        await note(lastAttempt ? 'failed' : 'retry', reason);
        log.warn('webhook attempt failed', { outcome: lastAttempt ? 'failed' : 'retry', statusCode: answer.statusCode });
        throw new RetryableDeliveryError(reason, answer.retryAfterSeconds !== undefined ? answer.retryAfterSeconds * 1000 : undefined);
      }
      await note('rejected', reason);
      log.warn('webhook rejected by receiver, not retried', { outcome: 'rejected', statusCode: answer.statusCode, attempts: attempt });
      if (payload.subscriptionId && (answer.statusCode === 404 || answer.statusCode === 410)) {
        // A receiver that is gone (a workflow deactivated while we were unreachable) stops being sent to.
        if (await deps.subscriptions.noteGone(payload.accountId, payload.subscriptionId).catch(() => false)) {
          log.warn('webhook subscription removed: its URL answered 404/410 to several deliveries in a row', { url: payload.url });
        }
      }
      throw new UnrecoverableError(reason);
    } catch (err) {
      // Outcomes above are already counted. Anything else is a storage error around the POST
      // (Redis away): this attempt ends like a network error.
      if (!(err instanceof RetryableDeliveryError || err instanceof UnrecoverableError)) webhookDeliveries.inc({ family, outcome: lastAttempt ? 'failed' : 'retry' });
      throw err;
    }
  };
}
