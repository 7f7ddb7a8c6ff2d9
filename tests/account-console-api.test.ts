import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/**
 * The account endpoints the console reads (`/account/keys`, `/account/usage/daily`,
 * `/account/requests`, `/account/webhook-deliveries`) on an in-process gateway and real Redis.
 * Outcomes are written into the records as a worker writes them (no worker runs here: the window
 * is 0, every submit answers 202); tests/console.test.ts drives the same through real workers.
 */
const prefix = testPrefix('account-console-api');
let h: GatewayHarness;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0' });
  owner = await h.account('console-owner');
  stranger = await h.account('console-stranger');
  await h.stores.accounts.setRateLimit(owner.accountId, 10_000);
});

afterAll(async () => {
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

const as = (key: string) => ({
  get: (path: string) => request(h.url).get(path).set('x-api-key', key),
  post: (path: string, body?: object) => request(h.url).post(path).set('x-api-key', key).send(body),
  delete: (path: string) => request(h.url).delete(path).set('x-api-key', key),
});

describe('API keys', () => {
  it('creates a key shown once, lists it with its last use, and revokes it (401 from then on)', async () => {
    const created = await as(owner.apiKey).post('/account/keys', { scopes: ['scrape'], label: 'crawler' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key_id: expect.any(String), label: 'crawler', scopes: ['scrape'], created_at: expect.any(Number) });
    const key = created.body.key as string;
    expect(key).toMatch(/^glk_/);
    expect(created.body.preview).toBe(key.slice(0, 12));

    // Used through the API: a scrape submit (202, no worker here).
    expect((await as(key).post('/web-scrapper/', { url: 'http://127.0.0.1:9/' })).status).toBe(202);
    let listed = (await as(owner.apiKey).get('/account/keys')).body.keys as Array<Record<string, unknown>>;
    for (let i = 0; i < 50 && !listed.find((k) => k.key_id === created.body.key_id)?.last_used_at; i++) {
      await new Promise((r) => setTimeout(r, 20));
      listed = (await as(owner.apiKey).get('/account/keys')).body.keys;
    }
    const entry = listed.find((k) => k.key_id === created.body.key_id)!;
    expect(entry).toMatchObject({ label: 'crawler', scopes: ['scrape'], last_used_at: expect.any(Number) });
    expect(JSON.stringify(listed)).not.toContain(key);
    // A scrape key cannot manage keys.
    expect((await as(key).get('/account/keys')).status).toBe(403);

    expect((await as(stranger.apiKey).delete(`/account/keys/${created.body.key_id}`)).status).toBe(404);
    expect((await as(key).post('/web-scrapper/', { url: 'http://127.0.0.1:9/' })).status).toBe(202);
    expect((await as(owner.apiKey).delete(`/account/keys/${created.body.key_id}`)).status).toBe(204);
    const refused = await as(key).post('/web-scrapper/', { url: 'http://127.0.0.1:9/' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'E004: Invalid API key' });
    listed = (await as(owner.apiKey).get('/account/keys')).body.keys;
    expect(listed.find((k) => k.key_id === created.body.key_id)?.revoked_at).toEqual(expect.any(Number));
    expect((await as(owner.apiKey).delete('/account/keys/0000000000000000')).body).toEqual({ error: 'E002: No such API key' });
  });

  it('refuses bad scopes and labels in the scraper error format', async () => {
    expect((await as(owner.apiKey).post('/account/keys', {})).body).toEqual({ error: 'E009: scopes must be a non-empty list of scrape, parse, account' });
    expect((await as(owner.apiKey).post('/account/keys', { scopes: ['admin'] })).status).toBe(400);
    expect((await as(owner.apiKey).post('/account/keys', { scopes: ['parse'], label: 7 })).body).toEqual({ error: 'E001: label must be a string' });
    expect((await as(owner.apiKey).post('/account/keys', { scopes: ['parse'], label: 'x'.repeat(101) })).body.error).toMatch(/^E009: label must be at most 100/);
  });
});

describe('requests, usage and deliveries', () => {
  it('lists the account\'s requests of every family newest first, with a detail of each result', async () => {
    const account = await h.account('console-requests');
    const scrape = await as(account.apiKey).post('/web-scrapper/', { url: 'http://127.0.0.1:9/article', output_type: 'markdown', webhook: 'http://127.0.0.1:9/in' });
    const parse = await as(account.apiKey).post('/documents/parse', { url: 'http://127.0.0.1:9/a.pdf' });
    const v1 = await as(account.apiKey).post('/v1/llm-web-scrapper', { url: 'http://127.0.0.1:9/v1', selector: 'h1' });
    expect([scrape.status, parse.status, v1.status]).toEqual([202, 202, 202]);
    await as(stranger.apiKey).post('/web-scrapper/', { url: 'http://127.0.0.1:9/strangers' });

    const records = h.stores.records;
    await records.complete('scrape', scrape.body.request_id, { text: 'Article text', markdown: '# Article', meta: { title: 'T', description: '' }, links: [], images: [] });
    await records.update('scrape', scrape.body.request_id, (r) => ({ ...r, webhook: { url: 'http://127.0.0.1:9/in', status: 'failed', attempts: 8, lastError: 'HTTP 503' } }));
    await records.fail('parse', parse.body.requestId, { code: '400-001', message: 'Invalid file type', details: ['not a PDF'] });

    const list = await as(account.apiKey).get('/account/requests');
    expect(list.status).toBe(200);
    expect(list.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual([v1.body.request_id, parse.body.requestId, scrape.body.request_id]);
    const [v1Row, parseRow, scrapeRow] = list.body.requests;
    expect(v1Row).toMatchObject({ family: 'scrape-v1', status: 'received', url: 'http://127.0.0.1:9/v1' });
    expect(v1Row.duration_ms).toBeUndefined();
    expect(parseRow).toMatchObject({ family: 'parse', status: 'failed', error: '400-001: Invalid file type' });
    expect(scrapeRow).toMatchObject({ family: 'scrape', status: 'completed', duration_ms: expect.any(Number), webhook: { status: 'failed', attempts: 8, last_error: 'HTTP 503' } });

    const detail = await as(account.apiKey).get(`/account/requests/${scrape.body.request_id}`);
    expect(detail.body).toMatchObject({ text: 'Article text', markdown: '# Article', input: { url: 'http://127.0.0.1:9/article', outputType: 'markdown' } });
    expect(detail.body.response).toMatchObject({ request_id: scrape.body.request_id, status: 'completed', content: { text: 'Article text', markdown: '# Article' } });
    expect((await as(account.apiKey).get(`/account/requests/${parse.body.requestId}`)).body).toMatchObject({ error: '400-001: Invalid file type', error_details: ['not a PDF'], response: { status: 'FAILED' } });
    // Someone else's request, and one that never was.
    expect((await as(stranger.apiKey).get(`/account/requests/${scrape.body.request_id}`)).status).toBe(404);
    expect((await as(account.apiKey).get('/account/requests/nope')).body).toEqual({ error: 'E002: No such request on this account (or it expired)' });

    const paged = await as(account.apiKey).get('/account/requests?limit=2');
    expect(paged.body.requests).toHaveLength(2);
    const rest = await as(account.apiKey).get(`/account/requests?limit=2&cursor=${encodeURIComponent(paged.body.cursor)}`);
    expect(rest.body.requests.map((r: { request_id: string }) => r.request_id)).toEqual([scrape.body.request_id]);
    expect(rest.body.cursor).toBeUndefined();
    expect((await as(account.apiKey).get('/account/requests?limit=0')).body).toEqual({ error: 'E009: limit must be a whole number from 1 to 100' });
    expect((await as(account.apiKey).get('/account/requests?cursor=abc')).status).toBe(400);

    const deliveries = await as(account.apiKey).get('/account/webhook-deliveries');
    expect(deliveries.body.deliveries).toEqual([
      { request_id: scrape.body.request_id, family: 'scrape', created_at: expect.any(Number), url: 'http://127.0.0.1:9/in', status: 'failed', attempts: 8, last_error: 'HTTP 503' },
    ]);

    const daily = await as(account.apiKey).get('/account/usage/daily?days=7');
    expect(daily.body.days).toHaveLength(7);
    expect(daily.body.days[6]).toMatchObject({ date: new Date().toISOString().slice(0, 10), credits_used: 1, requests: { scrape: 1, 'scrape-v1': 1, parse: 1 } });
    expect((await as(account.apiKey).get('/account/usage/daily?days=36')).status).toBe(400);
  });
});
