import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId } from '@gleaner/platform';
import { hsetUnderCap } from './capped-hash.js';
import { Keyspace } from './keyspace.js';
import type { Family } from './request-records.js';
import { unixNow } from './time.js';

/**
 * Account-level webhook endpoints (used by workflow tools such as the n8n trigger): every
 * request of the chosen families that ends is also delivered there, signed like any webhook.
 */
export interface WebhookSubscription {
  id: string;
  url: string;
  families: Family[];
  createdAt: number;
}

/**
 * The families a subscription may name. A crawl or batch is delivered its end notice
 * (`crawl.completed`, …), a map its status body with the links.
 */
export const SUBSCRIPTION_FAMILIES: Family[] = ['scrape', 'scrape-v1', 'parse', 'crawl', 'batch', 'map'];
/**
 * A subscription that names no families gets these: the single requests, whose bodies the
 * receivers written before crawls existed (the n8n trigger) expect.
 */
export const DEFAULT_SUBSCRIPTION_FAMILIES: Family[] = ['scrape', 'scrape-v1', 'parse'];
/**
 * Deliveries in a row that a subscription's URL answers 404 or 410 before the subscription is
 * removed: its receiver is gone (an n8n workflow deactivated while Gleaner could not be told).
 */
export const GONE_DELIVERIES_TO_REMOVE = 3;
/** Subscriptions one account may hold (fixed: each ended request is delivered to every one). */
export const MAX_SUBSCRIPTIONS = 20;

export class SubscriptionError extends Error {}

export class WebhookSubscriptionStore {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
  }

  async add(accountId: string, url: string, families: Family[] = DEFAULT_SUBSCRIPTION_FAMILIES): Promise<WebhookSubscription> {
    const sub: WebhookSubscription = { id: `whsub_${newRequestId()}`, url, families: [...new Set(families)], createdAt: unixNow() };
    if (!(await hsetUnderCap(this.redis, this.keys.subscriptions(accountId), MAX_SUBSCRIPTIONS, sub.id, JSON.stringify(sub)))) {
      throw new SubscriptionError(`at most ${MAX_SUBSCRIPTIONS} webhook subscriptions per account`);
    }
    return sub;
  }

  async list(accountId: string): Promise<WebhookSubscription[]> {
    const raw = await this.redis.hvals(this.keys.subscriptions(accountId));
    return raw.map((r) => JSON.parse(r) as WebhookSubscription).sort((a, b) => a.id.localeCompare(b.id));
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    await this.redis.hdel(this.keys.subscriptionsGone(accountId), id);
    return (await this.redis.hdel(this.keys.subscriptions(accountId), id)) === 1;
  }

  /**
   * Counts a delivery its URL answered 404 or 410; the subscription is removed at
   * GONE_DELIVERIES_TO_REMOVE in a row. Returns true when this call removed it.
   */
  async noteGone(accountId: string, id: string): Promise<boolean> {
    const inARow = await this.redis.hincrby(this.keys.subscriptionsGone(accountId), id, 1);
    if (inARow < GONE_DELIVERIES_TO_REMOVE) return false;
    return this.remove(accountId, id);
  }

  /** A delivery reached the subscription's URL: the count of deliveries in a row it answered 404/410 restarts. */
  async noteReached(accountId: string, id: string): Promise<void> {
    await this.redis.hdel(this.keys.subscriptionsGone(accountId), id);
  }

  async forFamily(accountId: string, family: Family): Promise<WebhookSubscription[]> {
    return (await this.list(accountId)).filter((s) => s.families.includes(family));
  }
}
