import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId } from '@gleaner/platform';
import { createStores, ENDED_NOTICE_MAX_CHARS, RateLimiter, RecordEndings, RenderedRecords, WindowBudget, type RateCount, type Stores } from '../src/index.js';
import { deleteKeysWithPrefix, keysMatching, testPrefix, testRedis } from '../../../tests/support/redis.js';

const prefix = testPrefix('store');
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

describe('accounts and keys', () => {
  it('stores only a hash of the key, checks scopes and revocation', async () => {
    const account = await stores.accounts.createAccount('acme');
    expect((await stores.accounts.createAccount('acme')).id).toBe(account.id);
    const { apiKey, record } = await stores.accounts.createApiKey(account.id, ['scrape']);
    const keys = await keysMatching(redis, `${prefix}:*`);
    for (const k of keys) {
      const type = await redis.type(k);
      const dump = type === 'string' ? await redis.get(k) : JSON.stringify(await redis.smembers(k));
      expect(dump ?? '').not.toContain(apiKey);
    }
    const admitted = await stores.apiKeyGate.admit(apiKey, 'scrape', 60);
    expect(admitted).toMatchObject({ kind: 'admitted', key: { keyId: record.keyId, accountId: account.id, scopes: ['scrape'] } });
    expect(await stores.apiKeyGate.admit(apiKey + 'x', 'scrape', 60)).toEqual({ kind: 'unknown' });
    expect(await stores.apiKeyGate.admit(apiKey, 'parse', 60)).toMatchObject({ kind: 'forbidden', key: { keyId: record.keyId } });
    await stores.accounts.revokeApiKey(record.keyId);
    expect(await stores.apiKeyGate.admit(apiKey, 'scrape', 60)).toEqual({ kind: 'unknown' });
    await expect(stores.accounts.createApiKey(account.id, ['admin' as 'scrape'])).rejects.toThrow(/scopes/);
  });
});

describe('webhook secrets', () => {
  it('are sealed at rest, readable by the account store only, and replaced on rotation', async () => {
    const account = await stores.accounts.createAccount('webhook-owner');
    const secret = await stores.accounts.webhookSecret(account.id);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    const stored = (await redis.get(`${prefix}:account:${account.id}`)) ?? '';
    expect(stored).toContain(account.id);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('whsec_');
    expect(JSON.stringify(await stores.accounts.getAccount(account.id))).not.toContain('whsec_');
    // Another master secret cannot open it.
    await expect(createStores(redis, prefix, 'another-secret-0123456789abcdef').accounts.webhookSecret(account.id)).rejects.toThrow();

    const rotated = await stores.accounts.rotateWebhookSecret(account.id);
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await stores.accounts.webhookSecret(account.id)).toBe(rotated);
    expect(await redis.get(`${prefix}:account:${account.id}`)).not.toContain(rotated);
    expect(await stores.accounts.webhookSecret('no-such-account')).toBeNull();
  });
});

describe('language-model keys', () => {
  it('encrypts secrets at rest, lists them masked, resolves the newest by default', async () => {
    const account = await stores.accounts.createAccount('llm-owner');
    const first = await stores.llmKeys.add(account.id, { provider: 'anthropic', secret: 'sk-ant-first-1111' });
    const second = await stores.llmKeys.add(account.id, { provider: 'openai-compatible', secret: 'sk-oai-second-2222', baseUrl: 'http://127.0.0.1:1/v1' });
    const raw = JSON.stringify(await redis.hgetall(`${prefix}:llm-keys:${account.id}`));
    expect(raw).not.toContain('sk-ant-first-1111');
    const listed = await stores.llmKeys.list(account.id);
    expect(listed.map((k) => k.masked)).toEqual(['••••1111', '••••2222']);
    expect(JSON.stringify(listed)).not.toContain('sk-');
    expect((await stores.llmKeys.resolve(account.id))?.secret).toBe('sk-oai-second-2222');
    expect((await stores.llmKeys.resolve(account.id, first.id))?.secret).toBe('sk-ant-first-1111');
    expect(await stores.llmKeys.resolve(account.id, 'llmk_nope')).toBeNull();
    expect(await stores.llmKeys.remove(account.id, second.id)).toBe(true);
    expect((await stores.llmKeys.resolve(account.id))?.id).toBe(first.id);
  });

  it('refuses a base URL with credentials, and lists one stored before that with its password masked', async () => {
    const account = await stores.accounts.createAccount('llm-credentials');
    const add = (baseUrl: string) => stores.llmKeys.add(account.id, { provider: 'openai-compatible', secret: 'sk-oai-cred-3333', baseUrl });
    await expect(add('http://user:pw-SECRET@127.0.0.1:1/v1')).rejects.toThrow(/must not carry a user name or password/);
    await expect(add('http://user@127.0.0.1:1/v1')).rejects.toThrow(/must not carry a user name or password/);
    await expect(add('not a url')).rejects.toThrow('base URL is not a valid absolute URL');
    expect(await stores.llmKeys.list(account.id)).toEqual([]);
    // A key registered before the check: its record as the older code wrote it.
    const stored = await add('http://127.0.0.1:1/v1');
    const raw = JSON.parse((await redis.hget(`${prefix}:llm-keys:${account.id}`, stored.id))!) as Record<string, unknown>;
    await redis.hset(`${prefix}:llm-keys:${account.id}`, stored.id, JSON.stringify({ ...raw, baseUrl: 'http://user:pw-SECRET@llm.example.net/v1' }));
    const [listed] = await stores.llmKeys.list(account.id);
    expect(listed.baseUrl).toBe('http://user:****@llm.example.net/v1');
    expect(JSON.stringify(listed)).not.toContain('pw-SECRET');
  });
});

describe('request records', () => {
  it('follows the lifecycle and switches a scrape to its 15-hour lifetime on completion', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId: 'acc-1', input: { url: 'https://example.com' } });
    expect(await redis.ttl(`${prefix}:rec:scrape:${id}`)).toBeGreaterThan(15 * 3600);
    await stores.records.markProcessing('scrape', id);
    expect((await stores.records.get('scrape', id))?.status).toBe('processing');
    await stores.records.complete('scrape', id, { text: 'hi' });
    const ttl = await redis.ttl(`${prefix}:rec:scrape:${id}`);
    expect(ttl).toBeLessThanOrEqual(15 * 3600);
    expect(ttl).toBeGreaterThan(15 * 3600 - 10);
    const lookup = await stores.records.lookup('scrape', id, 'acc-1');
    expect(lookup.found && lookup.record.status).toBe('completed');
    expect(await stores.records.lookup('scrape', id, 'acc-2')).toEqual({ found: false, reason: 'unknown' });
  });

  it('keeps a parse record 7 days and a v1 record 24 hours from creation', async () => {
    const p = newRequestId();
    await stores.records.create({ id: p, family: 'parse', accountId: 'a', input: {} });
    await stores.records.complete('parse', p, { data: 'x' });
    expect(await redis.ttl(`${prefix}:rec:parse:${p}`)).toBeGreaterThan(7 * 24 * 3600 - 10);
    const v = newRequestId();
    await stores.records.create({ id: v, family: 'scrape-v1', accountId: 'a', input: {} });
    expect(await redis.ttl(`${prefix}:rec:scrape-v1:${v}`)).toBeLessThanOrEqual(24 * 3600);
  });

  it("gives an Idempotency-Key's claim its record's lifetime: created with it, shortened with it, released only by its own request", async () => {
    const id = newRequestId();
    const claimed = await stores.idempotencyKeys.createClaimed({ id, family: 'scrape', accountId: 'acc-idem', input: {} }, 'key-1', 'fp');
    expect(claimed.created).toBe(true);
    const [claimKey] = await keysMatching(redis, `${prefix}:idem:scrape:acc-idem:*`);
    expect(await redis.ttl(claimKey)).toBeGreaterThan(7 * 24 * 3600 - 10);
    await stores.records.complete('scrape', id, { text: 'done' });
    const [record, claim] = await Promise.all([redis.ttl(`${prefix}:rec:scrape:${id}`), redis.ttl(claimKey)]);
    expect(record).toBeLessThanOrEqual(15 * 3600);
    expect(Math.abs(record - claim)).toBeLessThanOrEqual(1);

    await stores.idempotencyKeys.release('scrape', 'acc-idem', 'key-1', newRequestId());
    expect(await redis.exists(claimKey)).toBe(1);
    await stores.idempotencyKeys.release('scrape', 'acc-idem', 'key-1', id);
    expect(await redis.exists(claimKey)).toBe(0);
  });

  it('counts status reads per id', async () => {
    const id = newRequestId();
    expect(await stores.records.countRead('scrape-v1', id)).toBe(1);
    expect(await stores.records.countRead('scrape-v1', id)).toBe(2);
  });
});

describe('request record updates', () => {
  it('loses no field when concurrent writers on one client update the same record', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'parse', accountId: 'acc-cas', input: {} });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => stores.records.update('parse', id, (r) => ({ ...r, input: { ...r.input, [`writer${i}`]: i } }))),
    );
    const record = await stores.records.get('parse', id);
    expect(record?.input).toEqual({ writer0: 0, writer1: 1, writer2: 2, writer3: 3, writer4: 4, writer5: 5 });
  });

  it("writes a record it has just read or written without reading it again, and still sees another process's change", async () => {
    const worker = testRedis();
    const workerStores = createStores(worker, prefix, 'test-secret-0123456789abcdef');
    const other = testRedis();
    const otherProcess = createStores(other, prefix, 'test-secret-0123456789abcdef');
    const reads = jest.spyOn(worker, 'get');
    try {
      const id = newRequestId();
      await stores.records.create({ id, family: 'parse', accountId: 'acc-known', input: {} });
      // What a worker does with its job's record: read it once, then write it three times.
      expect((await workerStores.records.readForUpdate('parse', id))?.status).toBe('received');
      await workerStores.records.markProcessing('parse', id);
      await workerStores.records.setProgress('parse', id, 1, 2);
      expect(reads).toHaveBeenCalledTimes(1);
      // Another process writes the record: the value this store knows is stale now. Its next
      // update fails its compare-and-set, reads the record and keeps the other writer's change.
      await otherProcess.records.setDetectedType('parse', id, 'pdf');
      const done = await workerStores.records.complete('parse', id, { text: 'ok' });
      expect(reads).toHaveBeenCalledTimes(2);
      expect(done).toMatchObject({ status: 'completed', detectedType: 'pdf', progress: { pagesDone: 1, pagesTotal: 2 }, result: { text: 'ok' } });
      expect(await stores.records.get('parse', id)).toEqual(done);
      // A record that expired (deleted here) while known is not written back.
      await stores.records.delete('parse', id);
      expect(await workerStores.records.setProgress('parse', id, 2, 2)).toBeNull();
      expect(await redis.exists(`${prefix}:rec:parse:${id}`)).toBe(0);
    } finally {
      reads.mockRestore();
      worker.disconnect();
      other.disconnect();
    }
  });

  it('keeps the expiry on updates and shortens it to 15 hours when a scrape ends', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId: 'acc-ttl', input: {} });
    await stores.records.markProcessing('scrape', id);
    expect(await redis.ttl(`${prefix}:rec:scrape:${id}`)).toBeGreaterThan(15 * 3600);
    await stores.records.complete('scrape', id, { ok: true });
    const ttl = await redis.ttl(`${prefix}:rec:scrape:${id}`);
    expect(ttl).toBeLessThanOrEqual(15 * 3600);
    expect(ttl).toBeGreaterThan(15 * 3600 - 60);
    expect(await stores.records.update('scrape', newRequestId(), (r) => r)).toBeNull();
  });

  it("starts a scrape's 15-hour lifetime once, at completion: later updates (webhook attempts) keep the expiry", async () => {
    const key = (id: string) => `${prefix}:rec:scrape:${id}`;
    for (const end of ['complete', 'fail'] as const) {
      const id = newRequestId();
      await stores.records.create({ id, family: 'scrape', accountId: 'acc-ttl', input: {} });
      if (end === 'complete') await stores.records.complete('scrape', id, { ok: true });
      else await stores.records.fail('scrape', id, { code: 'E008', message: 'target answered HTTP 404' });
      expect(await redis.pttl(key(id))).toBeGreaterThan(15 * 3600_000 - 60_000);
      // Eleven hours later (simulated: the expiry is what is left of the 15 h) the dispatcher
      // records each webhook attempt; the record must still expire 15 h after completion.
      await redis.pexpire(key(id), 4 * 3600_000);
      await stores.records.update('scrape', id, (r) => ({ ...r, webhook: { url: 'https://hooks.example/x', status: 'pending', attempts: 1 } }));
      await stores.records.update('scrape', id, (r) => ({ ...r, webhook: { url: 'https://hooks.example/x', status: 'delivered', attempts: 2 } }));
      // A re-run of the job finding the outcome recorded writes the record again, too.
      await stores.records.markProcessing('scrape', id);
      const left = await redis.pttl(key(id));
      expect({ end, keptExpiry: left > 4 * 3600_000 - 60_000 && left <= 4 * 3600_000 }).toEqual({ end, keptExpiry: true });
      expect((await stores.records.get('scrape', id))?.webhook?.status).toBe('delivered');
    }
  });
});

describe('record endings', () => {
  let subscriber: Redis;
  let endings: RecordEndings;
  beforeAll(async () => {
    subscriber = testRedis();
    endings = new RecordEndings(subscriber, stores.records, prefix);
    await endings.start();
  });
  afterAll(() => endings.close());

  it('hands a waiter the record the moment it ends, whole when small and read back when large, and once only', async () => {
    const notices: string[] = [];
    const listener = testRedis();
    await listener.subscribe(`${prefix}:record-endings`);
    listener.on('message', (_channel: string, message: string) => notices.push(message));
    const small = newRequestId();
    const large = newRequestId();
    for (const id of [small, large]) await stores.records.create({ id, family: 'scrape', accountId: 'acc-end', input: {} });
    const waits = [endings.wait('scrape', small, 5_000), endings.wait('scrape', large, 5_000)];
    await stores.records.markProcessing('scrape', small); // not an end: no notice
    await stores.records.complete('scrape', small, { text: 'short' });
    const bigText = 'x'.repeat(ENDED_NOTICE_MAX_CHARS + 10);
    await stores.records.fail('scrape', large, { code: 'E008', message: bigText });
    const [first, second] = await Promise.all(waits.map((w) => w.ended));
    expect(first).toMatchObject({ id: small, status: 'completed', result: { text: 'short' } });
    expect(second).toMatchObject({ id: large, status: 'failed', error: { code: 'E008', message: bigText } });
    // Later writes to an ended record (webhook attempts) announce nothing.
    await stores.records.update('scrape', small, (r) => ({ ...r, webhook: { url: 'https://example.com/', status: 'delivered', attempts: 1 } }));
    await new Promise((r) => setTimeout(r, 100));
    expect(notices).toHaveLength(2);
    const [head, stored] = notices[0].split('\n');
    expect([head, JSON.parse(stored)]).toEqual([`scrape ${small}`, expect.objectContaining({ id: small, status: 'completed' })]);
    expect(notices[1]).toBe(`scrape ${large}`);
    listener.disconnect();
  });

  it('reads the record when a notice is not one of ours, and keeps serving', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId: 'acc-end', input: {} });
    const waiting = endings.wait('scrape', id, 1_500);
    await stores.records.complete('scrape', id, { text: 'ended quietly' }, {}, { announce: false });
    await redis.publish(`${prefix}:record-endings`, `scrape ${id}\n{not json`);
    expect(await waiting.ended).toMatchObject({ id, status: 'completed', result: { text: 'ended quietly' } });
  });

  it('gives null when the window passes or the wait is cancelled', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'parse', accountId: 'acc-end', input: {} });
    expect(await endings.wait('parse', id, 150).ended).toBeNull();
    const cancelled = endings.wait('parse', id, 5_000);
    cancelled.cancel();
    expect(await cancelled.ended).toBeNull();
  });

  it('reads the waiting records after a reconnect: a notice sent while the subscriber was away is not lost', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'scrape', accountId: 'acc-end', input: {} });
    const waiting = endings.wait('scrape', id, 10_000);
    const reconnected = new Promise((resolve) => subscriber.once('ready', resolve));
    subscriber.disconnect(true); // reconnects after retryStrategy's 50 ms
    await stores.records.complete('scrape', id, { text: 'while away' });
    await reconnected;
    const started = Date.now();
    expect(await waiting.ended).toMatchObject({ id, status: 'completed', result: { text: 'while away' } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('rendered status bodies', () => {
  it('renders a record once while it is unchanged, again once it changes, and never for another account', async () => {
    const id = newRequestId();
    await stores.records.create({ id, family: 'parse', accountId: 'acc-r', input: { url: 'u' } });
    const rendered = new RenderedRecords();
    let renders = 0;
    const render = (record: { status: string }) => ({ status: record.status, n: ++renders });
    const read = (accountId = 'acc-r') => stores.records.lookupRendered('parse', id, accountId, rendered, render);
    expect(await read()).toEqual({ found: true, json: '{"status":"received","n":1}' });
    expect(await read()).toEqual({ found: true, json: '{"status":"received","n":1}' });
    expect(await read('acc-other')).toEqual({ found: false, reason: 'unknown' });
    await stores.records.markProcessing('parse', id);
    expect(await read()).toEqual({ found: true, json: '{"status":"processing","n":2}' });
    expect(renders).toBe(2);
    await stores.records.delete('parse', id);
    expect(await read()).toEqual({ found: false, reason: 'unknown' });
  });

  it('keeps within its byte budget, least recently used out first, and never keeps a large record', () => {
    const rendered = new RenderedRecords(2 * 3 * 100, 200); // room for three entries of 50 + 50 characters
    for (const id of ['a', 'b', 'c']) rendered.set(id, id.repeat(50), 'acc', `"${'x'.repeat(48)}"`);
    expect(rendered.get('a', 'a'.repeat(50))).toBeDefined(); // a is now the most recent
    rendered.set('d', 'd'.repeat(50), 'acc', `"${'x'.repeat(48)}"`);
    expect(rendered.get('b', 'b'.repeat(50))).toBeUndefined();
    for (const id of ['a', 'c', 'd']) expect(rendered.get(id, id.repeat(50))).toBeDefined();
    expect(rendered.get('a', 'a changed record')).toBeUndefined();
    rendered.set('big', 'z'.repeat(201), 'acc', '{}');
    expect(rendered.get('big', 'z'.repeat(201))).toBeUndefined();
  });
});

describe('result cache and rate limiter', () => {
  it('caches per account and normalized URL', async () => {
    await stores.cache.put('acc-a', 'HTTPS://Example.com/a#frag', { requestId: 'r1', json: '{"x":1,\n"y":"two\nlines"}' });
    expect(await stores.cache.get('acc-a', 'https://example.com/a')).toEqual({ requestId: 'r1', json: '{"x":1,\n"y":"two\nlines"}' });
    expect(await stores.cache.get('acc-b', 'https://example.com/a')).toBeNull();
    expect(await stores.cache.get('acc-a', 'https://example.com/other')).toBeNull();
  });

  it('takes an entry in the older layout (a JSON object) for a miss', async () => {
    // An account of its own, so that its one cache key is this entry's.
    await stores.cache.put('acc-legacy', 'https://example.com/old', { requestId: 'r1', json: '{}' });
    const keys = await keysMatching(redis, `${prefix}:cache:acc-legacy:*`);
    expect(keys).toHaveLength(1);
    await redis.set(keys[0], JSON.stringify({ requestId: 'r0', url: 'https://example.com/old', timestamp: 1, result: {} }));
    expect(await stores.cache.get('acc-legacy', 'https://example.com/old')).toBeNull();
  });

  it('allows exactly the limit in a window', async () => {
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await stores.rateLimiter.consume('subject-1', 3));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.map((d) => d.resetSeconds)).toEqual([60, 60, 60, 60]);
  });

  it('slides: a place comes back when its request is a window old, at the Retry-After it gave', async () => {
    // A 2 s window stands in for the minute; the log is the same.
    const limiter = new RateLimiter(redis, prefix, 2);
    const first = await limiter.consume('sliding', 2);
    await new Promise((r) => setTimeout(r, 1_100));
    const second = await limiter.consume('sliding', 2);
    const refused = await limiter.consume('sliding', 2);
    expect([first.allowed, second.allowed, refused.allowed]).toEqual([true, true, false]);
    // The first request leaves the window about 0.9 s from now: Retry-After rounds up to 1 s.
    expect(refused).toMatchObject({ remaining: 0, resetSeconds: 1 });
    await new Promise((r) => setTimeout(r, refused.resetSeconds * 1000));
    const afterRetry = await limiter.consume('sliding', 2);
    // In again, and full again: the second request still counts (a fixed window would have reset it).
    expect(afterRetry).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume('sliding', 2)).allowed).toBe(false);
    // Refusals were not logged: two entries, the second request's and the retry's.
    expect(await redis.zcard(`${prefix}:rlog:sliding`)).toBe(2);
  });

  it('counts admitted API-key requests only, with the account override applied from the next request', async () => {
    const account = await stores.accounts.createAccount('gate-limits');
    const { apiKey } = await stores.accounts.createApiKey(account.id, ['scrape']);
    const rate = async (scope: 'scrape' | 'parse') => {
      const outcome = await stores.apiKeyGate.admit(apiKey, scope, 3);
      return outcome.kind === 'admitted' ? outcome.rate : outcome.kind;
    };
    expect(await rate('scrape')).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(await rate('parse')).toBe('forbidden'); // not counted
    expect(await rate('scrape')).toMatchObject({ allowed: true, limit: 3, remaining: 1 });
    await stores.accounts.setRateLimit(account.id, 1);
    // Two passed in the window: the second must age out before one more passes under a limit of 1.
    expect(await rate('scrape')).toMatchObject({ allowed: false, limit: 1, remaining: 0 });
    await stores.accounts.setRateLimit(account.id, 10);
    const last = await rate('scrape');
    // The refusal was not counted.
    expect(last).toMatchObject({ allowed: true, limit: 10, remaining: 7 });
    expect(typeof last === 'object' && last !== null && last.resetSeconds).toBeGreaterThan(0);
  });

  it("counts MCP protocol messages in a log of their own at ten times the key's limit, and uncounted reads in none", async () => {
    const account = await stores.accounts.createAccount('gate-counts');
    const { apiKey } = await stores.accounts.createApiKey(account.id, ['scrape']);
    const admit = async (counts: RateCount) => {
      const outcome = await stores.apiKeyGate.admit(apiKey, null, 2, counts);
      return outcome.kind === 'admitted' ? outcome.rate : outcome.kind;
    };
    expect(await admit('api')).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
    for (let i = 0; i < 5; i++) expect(await admit('none')).toBeNull();
    for (let i = 0; i < 19; i++) expect(await admit('mcp-protocol')).toMatchObject({ allowed: true, limit: 20 });
    // The protocol's messages and the uncounted reads left the API budget as it was.
    expect(await admit('api')).toMatchObject({ allowed: true, limit: 2, remaining: 0 });
    expect(await admit('mcp-protocol')).toMatchObject({ allowed: true, limit: 20, remaining: 0 });
    expect(await admit('mcp-protocol')).toMatchObject({ allowed: false, limit: 20 });
    expect(await admit('api')).toMatchObject({ allowed: false, limit: 2 });
    // A key without the scope is still refused when nothing would be counted.
    expect((await stores.apiKeyGate.admit(apiKey, 'parse', 2, 'none')).kind).toBe('forbidden');
  });
});

describe('window budget', () => {
  it('takes several units all or nothing, shares them across clients, and takes back what was given back', async () => {
    // A day-long window: the test never straddles a boundary in practice.
    const budget = new WindowBudget(redis, prefix, 86_400);
    const other = testRedis();
    try {
      const replica = new WindowBudget(other, prefix, 86_400);
      const first = await budget.take('bot-requests:t1', 10, 6);
      expect(first).toMatchObject({ granted: true, remaining: 4 });
      expect(first.resetMs).toBeGreaterThan(0);
      expect(first.resetMs).toBeLessThanOrEqual(86_400_000);
      // Another replica sees the same count; a take that does not fit changes nothing.
      expect(await replica.take('bot-requests:t1', 10, 6)).toMatchObject({ granted: false, remaining: 4 });
      expect(await replica.take('bot-requests:t1', 10, 4)).toMatchObject({ granted: true, remaining: 0 });
      expect(await budget.take('bot-requests:t1', 10, 1)).toMatchObject({ granted: false, remaining: 0 });
      await budget.giveBack('bot-requests:t1', first.window, 3);
      expect(await replica.take('bot-requests:t1', 10, 3)).toMatchObject({ granted: true, remaining: 0 });
      // Subjects are separate, and an old window is never recreated by a give-back.
      expect(await budget.take('bot-requests:t2', 10, 10)).toMatchObject({ granted: true });
      await budget.giveBack('bot-requests:t1', first.window - 5, 3);
      expect(await redis.exists(`${prefix}:rl:bot-requests:t1:${first.window - 5}`)).toBe(0);
    } finally {
      other.disconnect();
    }
  });
});
