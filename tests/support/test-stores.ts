import { Redis } from 'ioredis';
import { createStores, type Scope, type Stores } from '@gleaner/store';
import { TEST_REDIS_URL } from './redis.js';

/**
 * The stores of a test prefix, opened from the test process: for tests whose gateway runs as a
 * separate process, to create accounts and keys quickly (the CLI does the same through the same
 * store) and to read what the services wrote.
 */
export interface TestStores {
  stores: Stores;
  redis: Redis;
  close(): Promise<void>;
}

export function openTestStores(prefix: string, secret: string): TestStores {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
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

/** Every value stored under `prefix`, whatever the key's type, as one string per key. */
export async function dumpValuesUnderPrefix(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === 'string') value = await redis.getBuffer(key).then((b) => b?.toString('latin1'));
      else if (type === 'hash') value = await redis.hgetall(key);
      else if (type === 'list') value = await redis.lrange(key, 0, -1);
      else if (type === 'set') value = await redis.smembers(key);
      else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
      else if (type === 'stream') value = await redis.xrange(key, '-', '+');
      else value = `<${type}>`;
      out.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } while (cursor !== '0');
  return out;
}
