import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId } from '@gleaner/platform';
import { ApiKeyLastUsed, createStores, RequestsCursorError, USAGE_DAYS_KEPT, type Family, type Stores } from '../src/index.js';
import { deleteKeysWithPrefix, serversOf, testPrefix, testRedis } from '../../../tests/support/redis.js';

/** What the account console reads: key labels and last use, daily usage, the index of recent requests. */
const prefix = testPrefix('store-console');
let redis: Redis;
let stores: Stores;

beforeAll(() => {
  redis = testRedis();
  stores = createStores(redis, prefix, 'test-secret-0123456789abcdef');
});

afterAll(async () => {
  await deleteKeysWithPrefix(prefix);
  redis.disconnect();
});

/** A UUIDv7 of the given millisecond (the rest random): ids made in one millisecond share a score. */
function idAt(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  const rest = newRequestId().replace(/-/g, '').slice(12);
  const all = hex + rest;
  return `${all.slice(0, 8)}-${all.slice(8, 12)}-${all.slice(12, 16)}-${all.slice(16, 20)}-${all.slice(20)}`;
}

async function submitted(accountId: string, family: Family, id = newRequestId()): Promise<string> {
  await stores.records.create({ id, family, accountId, input: { url: `https://example.com/${id}` } });
  await stores.usage.countRequest(accountId, family, family === 'scrape-v1' ? 1 : 0, id);
  return id;
}

describe('API keys for the console', () => {
  it('keep a label, list their last use, and are revoked only by their own account', async () => {
    const account = await stores.accounts.createAccount('console-keys');
    const other = await stores.accounts.createAccount('console-keys-other');
    const { apiKey, record } = await stores.accounts.createApiKey(account.id, ['scrape'], { label: '  production  ' });
    expect(record.label).toBe('production');
    await expect(stores.accounts.createApiKey(account.id, ['scrape'], { label: 'x'.repeat(101) })).rejects.toThrow(/label/);
    await expect(stores.accounts.createApiKey(account.id, ['scrape'], { label: 'bad\u0007label' })).rejects.toThrow(/control/);

    expect((await stores.accounts.listApiKeys(account.id))[0].lastUsedAt).toBeUndefined();
    const before = Math.floor(Date.now() / 1000);
    await stores.apiKeyGate.admit(apiKey, 'scrape', 60);
    // The write is not awaited by admit: wait for it.
    let listed = await stores.accounts.listApiKeys(account.id);
    for (let i = 0; i < 50 && listed[0].lastUsedAt === undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
      listed = await stores.accounts.listApiKeys(account.id);
    }
    expect(listed[0]).toMatchObject({ keyId: record.keyId, label: 'production', scopes: ['scrape'] });
    expect(listed[0].lastUsedAt).toBeGreaterThanOrEqual(before);

    await expect(stores.accounts.revokeApiKey(record.keyId, other.id)).rejects.toThrow(/no API key/);
    expect((await stores.apiKeyGate.admit(apiKey, 'scrape', 60)).kind).toBe('admitted');
    expect((await stores.accounts.revokeApiKey(record.keyId, account.id)).revokedAt).toBeGreaterThan(0);
    expect((await stores.apiKeyGate.admit(apiKey, 'scrape', 60)).kind).toBe('unknown');
  });

  it('write last use at most once a minute per key', async () => {
    const tracker = new ApiKeyLastUsed(redis, prefix);
    const writes: string[] = [];
    // Every server's commands (a Cluster's masters each; one holds the key).
    const monitors = await Promise.all(serversOf(redis).map((server) => server.monitor()));
    for (const monitor of monitors) {
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === 'hset' && args[1] === `${prefix}:apikey-used:acc-throttle`) writes.push(args[3]);
      });
    }
    await tracker.touch('acc-throttle', 'key1', 1_000);
    await tracker.touch('acc-throttle', 'key1', 1_030);
    await tracker.touch('acc-throttle', 'key1', 1_059);
    await tracker.touch('acc-throttle', 'key1', 1_060);
    await tracker.touch('acc-throttle', 'key2', 1_060);
    // MONITOR sees a server's commands in order: this read's reply comes after the writes were seen.
    await redis.hlen(`${prefix}:apikey-used:acc-throttle`);
    await new Promise((r) => setTimeout(r, 100));
    for (const monitor of monitors) monitor.disconnect();
    expect(writes).toEqual(['1000', '1060', '1060']);
    expect(await redis.hgetall(`${prefix}:apikey-used:acc-throttle`)).toEqual({ key1: '1060', key2: '1060' });
  });
});

describe('daily usage', () => {
  it('counts requests, credits and tokens per UTC day, and keeps each day 35 days', async () => {
    const account = await stores.accounts.createAccount('console-usage');
    await submitted(account.id, 'scrape');
    await submitted(account.id, 'scrape');
    await submitted(account.id, 'scrape-v1');
    await stores.usage.countTokens(account.id, 120, 30);
    const days = await stores.usage.readDaily(account.id, 30);
    expect(days).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(days[29]).toEqual({ date: today, credits_used: 1, requests: { scrape: 2, 'scrape-v1': 1, parse: 0, crawl: 0, batch: 0, map: 0 }, llm_tokens: { input: 120, output: 30 } });
    expect(days[0].date < days[1].date).toBe(true);
    expect(days.slice(0, 29).every((d) => d.requests.scrape === 0 && d.credits_used === 0)).toBe(true);
    // The totals count the same.
    expect(await stores.usage.read(account.id)).toEqual({ credits_used: 1, requests: { scrape: 2, 'scrape-v1': 1, parse: 0, crawl: 0, batch: 0, map: 0 }, llm_tokens: { input: 120, output: 30 } });
    const ttl = await redis.ttl(`${prefix}:usage-day:${account.id}:${today}`);
    expect(ttl).toBeGreaterThan((USAGE_DAYS_KEPT - 1) * 86_400);
    expect(ttl).toBeLessThanOrEqual(USAGE_DAYS_KEPT * 86_400);
  });
});

describe('recent requests of an account', () => {
  it('lists every family newest first, in pages, without skipping requests made in the same millisecond', async () => {
    const account = await stores.accounts.createAccount('console-requests');
    const other = await stores.accounts.createAccount('console-requests-other');
    const base = Date.now() - 60_000;
    const ids: string[] = [];
    // 12 requests over 4 milliseconds, three families.
    for (let i = 0; i < 12; i++) ids.push(await submitted(account.id, (['scrape', 'scrape-v1', 'parse'] as const)[i % 3], idAt(base + Math.floor(i / 3))));
    await submitted(other.id, 'scrape');

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await stores.accountRequests.recent(account.id, { limit: 5, after: cursor });
      seen.push(...page.records.map((r) => r.id));
      cursor = page.cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(new Set(seen).size).toBe(12);
    expect(seen.sort()).toEqual([...ids].sort());
    const first = await stores.accountRequests.recent(account.id, { limit: 12 });
    const times = first.records.map((r) => Number.parseInt(r.id.replace(/-/g, '').slice(0, 12), 16));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(first.records.every((r) => r.accountId === account.id)).toBe(true);
    await expect(stores.accountRequests.recent(account.id, { after: 'not-a-cursor' })).rejects.toThrow(RequestsCursorError);

    expect((await stores.accountRequests.find(account.id, ids[4]))?.family).toBe('scrape-v1');
    expect(await stores.accountRequests.find(other.id, ids[4])).toBeNull();
  });

  it('skips and forgets requests whose record expired, and drops entries older than any record lives', async () => {
    const account = await stores.accounts.createAccount('console-expiry');
    const kept = await submitted(account.id, 'parse');
    const expired = await submitted(account.id, 'scrape');
    await stores.records.delete('scrape', expired);
    const index = `${prefix}:account-requests:${account.id}`;
    // An entry 8 days old (its record, made here, still exists): beyond any record's lifetime.
    const ancient = idAt(Date.now() - 8 * 86_400_000);
    await stores.records.create({ id: ancient, family: 'parse', accountId: account.id, input: {} });
    await redis.zadd(index, Date.now() - 8 * 86_400_000, `parse:${ancient}`);
    expect(await redis.zcard(index)).toBe(3);
    const page = await stores.accountRequests.recent(account.id);
    expect(page.records.map((r) => r.id)).toEqual([kept, ancient]);
    expect(await redis.zrange(index, 0, -1)).toEqual([`parse:${ancient}`, `parse:${kept}`]);
    await submitted(account.id, 'parse');
    expect(await redis.zcard(index)).toBe(2); // the 8-day-old entry went with the next submit
    expect(await redis.zscore(index, `parse:${ancient}`)).toBeNull();
    const ttl = await redis.ttl(index);
    expect(ttl).toBeGreaterThan(7 * 86_400 - 60);
  });
});
