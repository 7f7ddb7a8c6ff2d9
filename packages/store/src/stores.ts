import type { RedisClient as Redis } from '@gleaner/platform';
import { AccountRequests } from './account-requests.js';
import { AccountStore, DEFAULT_ACCOUNT_LIMITS, type AccountLimits } from './accounts.js';
import { CrawlState } from './crawl-state.js';
import { ApiKeyGate } from './api-key-gate.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { LlmKeyStore } from './llm-keys.js';
import { RateLimiter } from './rate-limiter.js';
import { RenderedPageStore } from './rendered-pages.js';
import { RequestRecordStore } from './request-records.js';
import { ResultCache } from './result-cache.js';
import { UsageCounters } from './usage.js';
import { WebhookSubscriptionStore } from './webhook-subscriptions.js';

/** All stores over one Redis client and key prefix. */
export interface Stores {
  records: RequestRecordStore;
  cache: ResultCache;
  accounts: AccountStore;
  apiKeyGate: ApiKeyGate;
  idempotencyKeys: IdempotencyKeys;
  llmKeys: LlmKeyStore;
  usage: UsageCounters;
  rateLimiter: RateLimiter;
  subscriptions: WebhookSubscriptionStore;
  /** The account's recent requests, newest first (the console's Requests and Webhooks pages). */
  accountRequests: AccountRequests;
  renderedPages: RenderedPageStore;
  /** Crawls' and batches' frontiers, counters and results. */
  crawls: CrawlState;
}

/** `limits`: what one account may hold (the gateway and the operator commands pass their configuration). */
export function createStores(redis: Redis, prefix: string, masterSecret: string, limits: Partial<AccountLimits> = {}): Stores {
  const accountLimits = { ...DEFAULT_ACCOUNT_LIMITS, ...limits };
  return {
    records: new RequestRecordStore(redis, prefix),
    cache: new ResultCache(redis, prefix),
    accounts: new AccountStore(redis, prefix, masterSecret, accountLimits),
    apiKeyGate: new ApiKeyGate(redis, prefix),
    idempotencyKeys: new IdempotencyKeys(redis, prefix),
    llmKeys: new LlmKeyStore(redis, prefix, masterSecret, accountLimits.maxLlmKeys),
    usage: new UsageCounters(redis, prefix),
    rateLimiter: new RateLimiter(redis, prefix),
    subscriptions: new WebhookSubscriptionStore(redis, prefix),
    accountRequests: new AccountRequests(redis, prefix),
    renderedPages: new RenderedPageStore(redis, prefix),
    crawls: new CrawlState(redis, prefix),
  };
}
