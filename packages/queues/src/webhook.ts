import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';

export type WebhookFamily = 'scrape' | 'scrape-v1' | 'parse' | 'crawl' | 'batch' | 'map';

/**
 * A crawl's or batch's notices: `page` delivers a run of its listed results (entries `from` to
 * `to`, inclusive, of its pages list, read when delivered), `ended` its end (completed, cancelled or
 * failed). Absent: the request's completion notice, as for every other family.
 */
export interface WebhookCrawlEvent {
  kind: 'page' | 'ended';
  from?: number;
  to?: number;
}

/**
 * One delivery of a completion notice: (request, endpoint). The job id is the delivery id, derived
 * from the request id, so a producer that retries never causes a second delivery. The body is
 * built from the request record at delivery time (payloads carry references, not blobs).
 */
export interface WebhookJob {
  deliveryId: string;
  requestId: string;
  accountId: string;
  family: WebhookFamily;
  url: string;
  /** Set for deliveries to an account-level subscription rather than the request's own webhook. */
  subscriptionId?: string;
  /** Crawls and batches: which of their notices this is. */
  crawlEvent?: WebhookCrawlEvent;
}

/** Stable per (request, endpoint): the request's own webhook, or one subscription. */
export function webhookDeliveryId(requestId: string, subscriptionId?: string): string {
  return subscriptionId ? `wh-${requestId}-${subscriptionId}` : `wh-${requestId}`;
}

export const webhookQueue = defineQueue<WebhookJob, { statusCode: number; attempts: number }>({
  name: 'webhook',
  schema: Joi.object<WebhookJob>({
    deliveryId: Joi.string().required(),
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    family: Joi.string().valid('scrape', 'scrape-v1', 'parse', 'crawl', 'batch', 'map').required(),
    url: Joi.string().required(),
    subscriptionId: Joi.string(),
    crawlEvent: Joi.object({ kind: Joi.string().valid('page', 'ended').required(), from: Joi.number().integer().min(0), to: Joi.number().integer().min(0) }),
  }),
  // Production schedule: 8 attempts, exponential from 30 s with jitter applied by the dispatcher's
  // backoff strategy: 30 s + 1 + 2 + 4 + 8 + 16 + 32 min ≈ 64 min in all (at least 5 attempts over
  // at least 30 minutes). Tests shorten the base delay through WEBHOOK_BACKOFF_BASE_MS.
  jobOptions: { attempts: 8, backoff: { type: 'webhook' }, removeOnComplete: shortRetention.removeOnComplete, removeOnFail: { age: 7 * 24 * 3600 } },
});
