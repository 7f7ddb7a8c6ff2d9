/**
 * Limits a tenant could multiply (issue 37, items 2, 3, 4 and 7), through a real gateway process
 * on real Redis: the rate limit binds the account, not each of its keys; live API keys, LLM keys
 * and MCP sessions are capped per account (counted atomically: many created at once cannot pass
 * the cap together); revoked keys are removed after their retention; every label-like field
 * refuses control characters and unpaired surrogates; `POST /mcp` with `[]` is one JSON-RPC error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createStores } from '@gleaner/store';
import { gleanerCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';

const prefix = testPrefix('account-limits');
const MAX_API_KEYS = 5;
const MAX_LLM_KEYS = 3;
const RETENTION_SECONDS = 2;
const env = serviceEnv(prefix, {
  ACCOUNT_MAX_API_KEYS: String(MAX_API_KEYS),
  ACCOUNT_MAX_LLM_KEYS: String(MAX_LLM_KEYS),
  REVOKED_API_KEY_RETENTION_SECONDS: String(RETENTION_SECONDS),
  MCP_SESSIONS_PER_KEY: '2',
  MCP_SESSIONS_PER_ACCOUNT: '3',
  DEFAULT_RATE_LIMIT_PER_MINUTE: '10000',
});

let gateway: GatewayProcess;
let test: TestStores;

beforeAll(async () => {
  test = openTestStores(prefix, env.GLEANER_SECRET);
  gateway = await startGatewayProcess(env);
}, 60_000);

afterAll(async () => {
  await gateway?.process.kill();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(apiKey: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** More keys of an account, made straight in the store (requests through the API would count against its limit). */
async function moreKeys(account: CreatedAccount, n: number): Promise<string[]> {
  return Promise.all(Array.from({ length: n }, async () => (await test.stores.accounts.createApiKey(account.accountId)).apiKey));
}

describe('the rate limit binds the account, all its keys together', () => {
  it('`accounts set-rate-limit` 20: 60 requests at once over 5 keys of the account, exactly 20 pass; another account is unaffected', async () => {
    const account = await createAccountWithKey(test.stores, 'many-keys');
    const other = await createAccountWithKey(test.stores, 'other-account', { ratePerMinute: 20 });
    await gleanerCli(['accounts', 'set-rate-limit', 'many-keys', '20'], env);
    const keys = [account.apiKey, ...(await moreKeys(account, 4))];
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => call(keys[i % keys.length], 'GET', '/account/usage')));
    const passed = answers.filter((a) => a.status === 200);
    expect([passed.length, answers.filter((a) => a.status === 429).length]).toEqual([20, 40]);
    // One log for the account: the answers that passed saw every remaining count once.
    expect(passed.map((a) => Number(a.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Every key is refused now, the ones that got nothing through too.
    for (const key of keys) expect((await call(key, 'GET', '/account/usage')).status).toBe(429);
    const elsewhere = await call(other.apiKey, 'GET', '/account/usage');
    expect([elsewhere.status, elsewhere.headers.get('ratelimit-remaining'), elsewhere.body.rate_limit_per_minute]).toEqual([200, '19', 20]);
  }, 30_000);
});

describe('API keys per account', () => {
  it(`at most ${MAX_API_KEYS} live keys: 12 created at once make exactly ${MAX_API_KEYS - 1} more; revoking one makes room`, async () => {
    const account = await createAccountWithKey(test.stores, 'key-minter');
    const made = await Promise.all(Array.from({ length: 12 }, () => call(account.apiKey, 'POST', '/account/keys', { scopes: ['scrape'] })));
    const created = made.filter((a) => a.status === 201);
    expect(created).toHaveLength(MAX_API_KEYS - 1);
    const refused = made.filter((a) => a.status !== 201);
    expect(new Set(refused.map((a) => `${a.status} ${String(a.body.error)}`))).toEqual(
      new Set([`400 E009: an account holds at most ${MAX_API_KEYS} live API keys: revoke one before creating another`]),
    );
    expect((await call(account.apiKey, 'GET', '/account/keys')).body.keys).toHaveLength(MAX_API_KEYS);

    expect((await call(account.apiKey, 'DELETE', `/account/keys/${String(created[0].body.key_id)}`)).status).toBe(204);
    expect((await call(account.apiKey, 'POST', '/account/keys', { scopes: ['parse'] })).status).toBe(201);
    expect((await call(account.apiKey, 'POST', '/account/keys', { scopes: ['parse'] })).status).toBe(400);
    // The operator's command line counts the same keys.
    const cli = await gleanerCli(['keys', 'create', '--account', 'key-minter'], env).catch((err: { stderr: string }) => err);
    expect(cli.stderr).toBe(`error: an account holds at most ${MAX_API_KEYS} live API keys: revoke one before creating another\n`);
  }, 30_000);

  it(`a revoked key answers 401 at once, stays listed as revoked for the retention (${RETENTION_SECONDS} s here), then is gone`, async () => {
    const account = await createAccountWithKey(test.stores, 'revoker');
    const { record, apiKey } = await test.stores.accounts.createApiKey(account.accountId, ['scrape']);
    expect((await call(account.apiKey, 'DELETE', `/account/keys/${record.keyId}`)).status).toBe(204);
    expect((await call(apiKey, 'GET', '/account')).status).toBe(401);
    const listed = (await call(account.apiKey, 'GET', '/account/keys')).body.keys as Array<Record<string, unknown>>;
    expect(listed.find((k) => k.key_id === record.keyId)).toMatchObject({ revoked_at: expect.any(Number) });
    const ttl = await test.redis.ttl(`${prefix}:apikey-id:${record.keyId}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(RETENTION_SECONDS);

    await new Promise((r) => setTimeout(r, (RETENTION_SECONDS + 1) * 1000));
    const after = (await call(account.apiKey, 'GET', '/account/keys')).body.keys as Array<Record<string, unknown>>;
    expect(after.map((k) => k.key_id)).toEqual([account.keyId]);
    expect(await test.redis.exists(`${prefix}:apikey-id:${record.keyId}`)).toBe(0);
    expect(await test.redis.smembers(`${prefix}:account-keys:${account.accountId}`)).toEqual([account.keyId]);
    expect((await call(apiKey, 'GET', '/account')).status).toBe(401);
  }, 30_000);

  it('keeps at most as many revoked keys as live ones (the most recently revoked), and removes keys revoked before revocations expired', async () => {
    // The store as the gateway builds it, with a long retention: only the count can remove keys here.
    const stores = createStores(test.redis, prefix, env.GLEANER_SECRET, { maxApiKeys: 2, revokedApiKeyRetentionSeconds: 3600 });
    const account = await stores.accounts.createAccount('churner');
    const revoked: string[] = [];
    for (let i = 0; i < 3; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 1050)); // revocation times are to the second
      const { record } = await stores.accounts.createApiKey(account.id, ['scrape']);
      await stores.accounts.revokeApiKey(record.keyId);
      revoked.push(record.keyId);
    }
    expect((await stores.accounts.listApiKeys(account.id)).map((k) => k.keyId)).toEqual(revoked.slice(1));
    expect(await test.redis.exists(`${prefix}:apikey-id:${revoked[0]}`)).toBe(0);

    // A key revoked by an older version (no expiry on its records) 8 days ago goes at the next listing.
    const { record } = await stores.accounts.createApiKey(account.id, ['scrape']);
    const hash = (await test.redis.get(`${prefix}:apikey-id:${record.keyId}`))!;
    await test.redis.set(`${prefix}:apikey:${hash}`, JSON.stringify({ ...record, revokedAt: Math.floor(Date.now() / 1000) - 8 * 24 * 3600 }));
    expect((await stores.accounts.listApiKeys(account.id)).map((k) => k.keyId)).toEqual(revoked.slice(1));
    expect(await test.redis.exists(`${prefix}:apikey:${hash}`)).toBe(0);
  }, 30_000);
});

describe('LLM keys per account', () => {
  it(`at most ${MAX_LLM_KEYS}: 8 added at once make exactly ${MAX_LLM_KEYS}; removing one makes room`, async () => {
    const account = await createAccountWithKey(test.stores, 'llm-hoarder');
    const added = await Promise.all(Array.from({ length: 8 }, (_, i) => call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'anthropic', key: `sk-ant-hoard-${i}-0000`, label: `key ${i}` })));
    const created = added.filter((a) => a.status === 201);
    expect(created).toHaveLength(MAX_LLM_KEYS);
    expect(new Set(added.filter((a) => a.status !== 201).map((a) => `${a.status} ${String(a.body.error)}`))).toEqual(
      new Set([`400 E009: an account holds at most ${MAX_LLM_KEYS} language-model keys: remove one before adding another`]),
    );
    expect((await call(account.apiKey, 'GET', '/account/llm-keys')).body.keys).toHaveLength(MAX_LLM_KEYS);
    expect((await call(account.apiKey, 'DELETE', `/account/llm-keys/${String(created[0].body.id)}`)).status).toBe(204);
    expect((await call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'anthropic', key: 'sk-ant-hoard-again' })).status).toBe(201);
  });
});

describe('label-like fields: one rule', () => {
  const BAD: Array<[string, string]> = [
    ['NUL', 'prod\u0000'],
    ['ESC', '\u001b[31mred'],
    ['DEL', 'a\u007fb'],
    ['C1 NEL', 'line\u0085break'],
    ['C1 CSI', '\u009b31m'],
    ['lone high surrogate', 'half \ud83d'],
    ['lone low surrogate', '\ude00 half'],
    ['101 characters', 'x'.repeat(101)],
  ];
  const RULE = 'must be at most 100 characters, without control characters (U+0000-U+001F, U+007F-U+009F) or unpaired surrogates';
  let account: CreatedAccount;

  beforeAll(async () => {
    account = await createAccountWithKey(test.stores, 'labeller');
  });

  it.each(BAD)('refuses %s in an API key label, an LLM key label and an LLM model, with E009 naming the rule', async (_name, text) => {
    const answers = [
      ['label', await call(account.apiKey, 'POST', '/account/keys', { scopes: ['scrape'], label: text })],
      ['label', await call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'anthropic', key: 'sk-ant-label-test', label: text })],
      ['model', await call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'anthropic', key: 'sk-ant-label-test', model: text })],
    ] as const;
    expect(answers.map(([field, a]) => [a.status, a.body.error])).toEqual(answers.map(([field]) => [400, `E009: ${field} ${RULE}`]));
  });

  it('takes 100 characters, counted as characters (emoji, accents, right-to-left text), and lists them back as given', async () => {
    const label = `${'😀'.repeat(50)}${'é'.repeat(25)}${'שלום'.repeat(6)}x`;
    expect([...label]).toHaveLength(100);
    const apiKey = await call(account.apiKey, 'POST', '/account/keys', { scopes: ['scrape'], label });
    const llmKey = await call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'openai-compatible', key: 'sk-label-test-0000', base_url: 'http://127.0.0.1:9/v1', model: label, label });
    expect([apiKey.status, apiKey.body.label]).toEqual([201, label]);
    expect([llmKey.status, llmKey.body.label, llmKey.body.model]).toEqual([201, label, label]);
  });

  it('refuses an LLM key secret over 4096 characters (the listing never carries it, but Redis would)', async () => {
    const res = await call(account.apiKey, 'POST', '/account/llm-keys', { provider: 'anthropic', key: `sk-${'x'.repeat(4094)}` });
    expect([res.status, res.body.error]).toEqual([400, 'E009: key secret is longer than 4096 characters']);
  });
});

describe('MCP sessions per account', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'limits-test', version: '1' } } };
  const headers = (apiKey: string, session?: string) => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': apiKey,
    'mcp-protocol-version': '2025-06-18',
    ...(session ? { 'mcp-session-id': session } : {}),
  });

  async function openSession(apiKey: string): Promise<string> {
    const res = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: headers(apiKey), body: JSON.stringify(initialize) });
    await res.text();
    expect(res.status).toBe(200);
    return res.headers.get('mcp-session-id')!;
  }

  async function sessionStatus(apiKey: string, session: string): Promise<number> {
    const res = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: headers(apiKey, session), body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    await res.text();
    return res.status;
  }

  it("3 keys of one account hold 3 sessions in all (2 per key): a new one closes the account's least recently used", async () => {
    const account = await createAccountWithKey(test.stores, 'mcp-tenant');
    const [k1, k2, k3] = [account.apiKey, ...(await moreKeys(account, 2))];
    const s1 = await openSession(k1);
    const s2 = await openSession(k2);
    const s3 = await openSession(k3);
    const s4 = await openSession(k2);
    // s1 was the account's least recently used when s4 made four.
    expect([await sessionStatus(k1, s1), await sessionStatus(k2, s2), await sessionStatus(k3, s3), await sessionStatus(k2, s4)]).toEqual([404, 200, 200, 200]);
    // Another account's sessions are not counted with these.
    const other = await createAccountWithKey(test.stores, 'mcp-other');
    const o1 = await openSession(other.apiKey);
    expect([await sessionStatus(other.apiKey, o1), await sessionStatus(k2, s2), await sessionStatus(k3, s3), await sessionStatus(k2, s4)]).toEqual([200, 200, 200, 200]);
  });

  it('answers an empty JSON-RPC batch with one Invalid Request error (-32600), not 202', async () => {
    const account = await createAccountWithKey(test.stores, 'mcp-batcher');
    const res = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: headers(account.apiKey), body: '[]' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'E001: Invalid Request: an empty batch holds no message' }, id: null });
  });
});
