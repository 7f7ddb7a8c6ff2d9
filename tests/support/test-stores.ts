import type { RedisClient } from '@gleaner/platform';
import { createStores, type Scope, type Stores } from '@gleaner/store';
import { testRedis } from './redis.js';

/**
 * The stores of a test prefix, opened from the test process: for tests whose gateway runs as a
 * separate process, to create accounts and keys quickly (the CLI does the same through the same
 * store) and to read what the services wrote.
 */
export interface TestStores {
  stores: Stores;
  redis: RedisClient;
  close(): Promise<void>;
}

export function openTestStores(prefix: string, secret: string): TestStores {
  const redis = testRedis();
  return {
    stores: createStores(redis, prefix, secret),
    redis,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export interface CreatedAccount {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** An account with one API key (all scopes unless told) and, when given, its own rate limit. */
export async function createAccountWithKey(stores: Stores, name: string, options: { ratePerMinute?: number; scopes?: Scope[] } = {}): Promise<CreatedAccount> {
  const account = await stores.accounts.createAccount(name);
  if (options.ratePerMinute !== undefined) await stores.accounts.setRateLimit(account.id, options.ratePerMinute);
  const { apiKey, record } = await stores.accounts.createApiKey(account.id, options.scopes);
  return { accountId: account.id, apiKey, keyId: record.keyId };
}
