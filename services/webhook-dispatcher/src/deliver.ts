import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { FetchError, postJson, signWebhook } from '@gleaner/safe-fetch';
import { webhookDeliveries, type Logger } from '@gleaner/platform';
import type { WebhookJob } from '@gleaner/queues';
import type { AccountStore, RequestRecordStore } from '@gleaner/store';
import { RetryableDeliveryError } from './backoff.js';
import { WEBHOOK_USER_AGENT, webhookBody } from './webhook-body.js';

export interface DeliveryDeps {
  records: RequestRecordStore;
  accounts: AccountStore;
  logger: Logger;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

/**
 * One delivery attempt: POST the family's body, signed `t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>`
 * with the account's current secret. 2xx delivers; 429, 5xx, timeouts and network errors retry;
 * any other answer ends the delivery at once.
 */
export function createDeliveryProcessor(deps: DeliveryDeps) {
  return async (payload: WebhookJob, job: Job): Promise<{ statusCode: number; attempts: number }> => {
    const attempt = job.attemptsMade + 1;
    const log = deps.logger.child({ requestId: payload.requestId, deliveryId: payload.deliveryId, attempt });
    const [record, secret] = await Promise.all([deps.records.get(payload.family, payload.requestId), deps.accounts.webhookSecret(payload.accountId)]);
    if (!record || !secret) {
      log.warn('webhook dropped: request record or account no longer exists');
      throw new UnrecoverableError('request record or account no longer exists');
    }
    if (!payload.subscriptionId && record.webhook?.status === 'delivered') {
      // An attempt that reached the receiver but lost its job lock (a Redis outage) runs again:
      // the record says it arrived, so the receiver is not sent a duplicate.
      log.info('webhook already delivered, not sending again', { outcome: 'duplicate-skipped' });
      return { statusCode: 200, attempts: record.webhook.attempts };
    }
    const body = JSON.stringify(webhookBody(payload.family, record));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT[payload.family],
      'X-Request-ID': payload.requestId,
      'X-Webhook-Delivery': payload.deliveryId,
      'X-Webhook-Attempt': String(attempt),
      'X-Webhook-Signature': signWebhook(secret, body, timestamp),
    };
    // Subscriptions are the account's concern; the record tracks only the request's own webhook.
    const note = async (outcome: 'delivered' | 'retrying' | 'failed', lastError?: string) => {
      webhookDeliveries.inc({ family: payload.family, outcome: outcome === 'retrying' ? 'retry' : outcome === 'failed' ? 'rejected' : 'delivered' });
      if (payload.subscriptionId) return;
      await deps.records.update(payload.family, payload.requestId, (r) => ({
        ...r,
        webhook: { url: payload.url, status: outcome === 'retrying' ? 'pending' : outcome, attempts: attempt, ...(lastError ? { lastError } : {}), ...(outcome === 'delivered' ? { deliveredAt: timestamp } : {}) },
      }));
    };

    let answer;
    try {
      answer = await postJson(payload.url, body, { headers, timeoutMs: deps.timeoutMs, allowPrivateNetworks: deps.allowPrivateNetworks });
    } catch (err) {
      const reason = err instanceof FetchError ? `${err.kind}: ${err.message}` : (err as Error).message;
      if (err instanceof FetchError && (err.kind === 'blocked_address' || err.kind === 'invalid_url')) {
        await note('failed', reason);
        log.warn('webhook refused', { outcome: 'refused', reason });
        throw new UnrecoverableError(reason);
      }
      await note('retrying', reason);
      log.warn('webhook attempt failed', { outcome: 'retry', reason });
      throw new RetryableDeliveryError(reason);
    }
    if (answer.statusCode >= 200 && answer.statusCode < 300) {
      await note('delivered');
      log.info('webhook delivered', { outcome: 'delivered', statusCode: answer.statusCode, attempts: attempt });
      return { statusCode: answer.statusCode, attempts: attempt };
    }
    const reason = `receiver answered HTTP ${answer.statusCode}`;
    if (answer.statusCode === 429 || answer.statusCode >= 500) {
      await note('retrying', reason);
      log.warn('webhook attempt failed', { outcome: 'retry', statusCode: answer.statusCode });
      throw new RetryableDeliveryError(reason, answer.retryAfterSeconds !== undefined ? answer.retryAfterSeconds * 1000 : undefined);
    }
    await note('failed', reason);
    log.warn('webhook rejected by receiver, not retried', { outcome: 'rejected', statusCode: answer.statusCode, attempts: attempt });
    throw new UnrecoverableError(reason);
  };
}
