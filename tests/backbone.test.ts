import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { newRequestId } from '@gleaner/platform';
import { submitAndWait } from '@gleaner/gateway';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { deleteKeysWithPrefix, serversOf, testPrefix } from './support/redis.js';
import { startScriptedWorkers } from './support/scripted-processors.js';

const prefix = testPrefix('backbone');
let h: GatewayHarness;
let workers: { close(): Promise<void> };
let a: TestAccount;
let b: TestAccount;
let scrapeOnly: TestAccount;
let parseOnly: TestAccount;

const target = (path: string) => `http://127.0.0.1:9/${path}`;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '1500' });
  workers = await startScriptedWorkers(prefix);
  a = await h.account('alice');
  b = await h.account('bob');
  scrapeOnly = await h.account('scraper-only', ['scrape']);
  parseOnly = await h.account('parser-only', ['parse']);
});

afterAll(async () => {
  await workers?.close();
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

const families = [
  { name: 'current scraper', path: '/web-scrapper/', body: { url: target('x') }, parser: 'scraper' },
  { name: 'v1 scraper', path: '/v1/llm-web-scrapper', body: { url: target('x') }, parser: 'v1' },
  { name: 'document parser', path: '/documents/parse', body: { url: target('x.pdf') }, parser: 'parser' },
] as const;

function expectFamilyError(family: string, body: Record<string, unknown>, status: number, code?: string) {
  if (family === 'scraper') expect(body.error).toMatch(new RegExp(`^${code ?? 'E\\d{3}'}: `));
  if (family === 'v1') {
    expect(typeof body.error).toBe('string');
    expect(body.status_code).toBe(status);
  }
  if (family === 'parser') {
    expect(body.error).toMatch(new RegExp(`^${code ?? '\\d{3}-\\d{3}'}: `));
    expect(Array.isArray(body.details)).toBe(true);
  }
}

describe.each(families)('$name: authentication and body limits', ({ path, body, parser }) => {
  it('401 without a key and with an unknown key', async () => {
    const none = await request(h.url).post(path).send(body);
    expect(none.status).toBe(401);
    expectFamilyError(parser, none.body, 401, parser === 'scraper' ? 'E004' : parser === 'parser' ? '401-001' : undefined);
    const wrong = await request(h.url).post(path).set('x-api-key', 'glk_0000000000000000_nope').send(body);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['x-request-id']).toBeTruthy();
  });

  it('403 when the key lacks the scope, naming the scope in the details', async () => {
    const wrongScope = parser === 'parser' ? scrapeOnly : parseOnly;
    const res = await request(h.url).post(path).set('x-api-key', wrongScope.apiKey).send(body);
    expect(res.status).toBe(403);
    expectFamilyError(parser, res.body, 403, parser === 'parser' ? '403-001' : parser === 'scraper' ? 'E004' : undefined);
    const [needed, held] = parser === 'parser' ? ['parse', 'scrape'] : ['scrape', 'parse'];
    expect(res.body.details).toEqual([`this API needs a key with the '${needed}' scope; this key has '${held}'`]);
  });

  it('400 on a body that is not JSON', async () => {
    const res = await request(h.url).post(path).set('x-api-key', a.apiKey).set('content-type', 'application/json').send('{"url": ');
    expect(res.status).toBe(400);
    expectFamilyError(parser, res.body, 400);
  });

  it('413 on a body over 100 KB', async () => {
    const res = await request(h.url).post(path).set('x-api-key', a.apiKey).send({ ...body, pad: 'x'.repeat(110 * 1024) });
    expect(res.status).toBe(413);
    expectFamilyError(parser, res.body, 413);
  });
});

it('403 on /account with a key without the account scope, in the scraper error format', async () => {
  // `GET /account` (who am I) answers any valid key; the rest of /account needs the scope.
  const whoami = await request(h.url).get('/account').set('x-api-key', scrapeOnly.apiKey);
  expect(whoami.status).toBe(200);
  expect(whoami.body).toMatchObject({ key_id: expect.any(String), scopes: ['scrape'] });
  expect((await request(h.url).get('/account').set('x-api-key', 'glk_0000000000000000_nope')).status).toBe(401);
  const res = await request(h.url).get('/account/usage').set('x-api-key', scrapeOnly.apiKey);
  expect(res.status).toBe(403);
  expect(res.body).toEqual({ error: 'E004: API key lacks permission for this API', details: ["this API needs a key with the 'account' scope; this key has 'scrape'"] });
});

it('429 with Retry-After and RateLimit-* headers once the per-account limit is spent', async () => {
  const limited = await h.account('limited');
  await h.stores.accounts.setRateLimit(limited.accountId, 3);
  const codes: number[] = [];
  let last: request.Response | undefined;
  for (let i = 0; i < 5; i++) {
    last = await request(h.url).get('/web-scrapper/01900000-0000-7000-8000-000000000000').set('x-api-key', limited.apiKey);
    codes.push(last.status);
  }
  expect(codes).toEqual([404, 404, 404, 429, 429]);
  expect(last!.body).toEqual({ error: 'E429: Rate limit exceeded' });
  expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
  expect(last!.headers['ratelimit-limit']).toBe('3');
  expect(last!.headers['ratelimit-remaining']).toBe('0');
  expect(Number(last!.headers['ratelimit-reset'])).toBeGreaterThan(0);
  // The same limit in the parser's format.
  const parse = await request(h.url).get('/documents/status/01900000-0000-7000-8000-000000000000').set('x-api-key', limited.apiKey);
  expect(parse.status).toBe(429);
  expect(parse.body.error).toMatch(/^429-001: /);
});

describe('the 20-second window', () => {
  it('answers 200 with the result when the job finishes inside the window', async () => {
    const res = await request(h.url).post('/web-scrapper/').set('x-api-key', a.apiKey).send({ url: target('sleep/50'), output_type: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.text_content).toContain('scripted text');
    expect(res.body.markdown_content).toBe('# Scripted');
    expect(res.headers['x-request-id']).toBe(res.body.request_id);
  });

  it("writes a request's record before its job can be taken, though it does not wait for the record's answer before adding the job", async () => {
    // The gateway sends the record and the job together on one connection. Its socket is held
    // (corked) here while both are sent: had the job gone out on a connection of its own, the
    // worker would take it at once and find no record ("request record missing", dropped).
    const { redis, producers, stores } = h.gateway.deps;
    // Every server's connection (a Cluster's masters; one holds the deployment's slot).
    const sockets = serversOf(redis).map((server) => (server as unknown as { stream: NodeJS.WritableStream & { cork(): void; uncork(): void } }).stream);
    const socket = { cork: () => sockets.forEach((s) => s.cork()), uncork: () => sockets.forEach((s) => s.uncork()) };
    const requestId = newRequestId();
    socket.cork();
    const submitted = submitAndWait(stores, h.gateway.deps, {
      family: 'scrape',
      requestId,
      accountId: b.accountId,
      input: { url: target('corked') },
      producer: producers.scrape,
      payload: { requestId, accountId: b.accountId, url: target('corked'), outputType: 'plaintext', useLlm: false },
      windowMs: 3_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    socket.uncork();
    const { record } = await submitted;
    expect(record).toMatchObject({ id: requestId, status: 'completed', result: { text: `scripted text for ${target('corked')}` } });
  });

  it('answers 202 past the window, and the status endpoint later shows completed', async () => {
    const res = await request(h.url).post('/web-scrapper/').set('x-api-key', a.apiKey).send({ url: target('sleep/2500') });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'processing', url: target('sleep/2500') });
    expect(typeof res.body.message).toBe('string');
    const id = res.body.request_id as string;
    const during = await request(h.url).get(`/web-scrapper/${id}`).set('x-api-key', a.apiKey);
    expect(during.status).toBe(200);
    expect(['received', 'processing']).toContain(during.body.status);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await request(h.url).get(`/web-scrapper/${id}`).set('x-api-key', a.apiKey);
    expect(after.status).toBe(200);
    expect(after.body.status).toBe('completed');
    expect(after.body.content.text).toContain('scripted text');
  });

  it('Prefer: respond-async answers 202 with the request id at once; Prefer: wait=N reads the status the moment the request ends', async () => {
    for (const family of [
      { submit: '/web-scrapper/', status: (id: string) => `/web-scrapper/${id}`, id: (body: Record<string, unknown>) => body.request_id as string, done: 'completed' },
      { submit: '/documents/parse', status: (id: string) => `/documents/status/${id}`, id: (body: Record<string, unknown>) => body.requestId as string, done: 'COMPLETED' },
    ]) {
      const sent = Date.now();
      const accepted = await request(h.url).post(family.submit).set('x-api-key', a.apiKey).set('prefer', 'respond-async').send({ url: target('sleep/800') });
      expect([accepted.status, accepted.headers['preference-applied']]).toEqual([202, 'respond-async']);
      expect(Date.now() - sent).toBeLessThan(700);
      const id = family.id(accepted.body);
      // Held until the request ends (about 800 ms after it was sent), not for the whole wait asked.
      const read = await request(h.url).get(family.status(id)).set('x-api-key', a.apiKey).set('prefer', 'wait=10');
      const tookMs = Date.now() - sent;
      expect([read.status, read.body.status, read.headers['preference-applied']]).toEqual([200, family.done, 'wait=2']);
      expect(tookMs).toBeGreaterThanOrEqual(700);
      expect(tookMs).toBeLessThan(1_450);
      // An ended request, and another account's id, are answered at once.
      const again = Date.now();
      expect((await request(h.url).get(family.status(id)).set('x-api-key', a.apiKey).set('prefer', 'wait=10')).status).toBe(200);
      expect((await request(h.url).get(family.status(id)).set('x-api-key', b.apiKey).set('prefer', 'wait=10')).status).toBe(404);
      expect(Date.now() - again).toBeLessThan(500);
    }
    // A running request read with a wait longer than it runs: answered at the end of the window (1.5 s here), still running.
    const slow = await request(h.url).post('/web-scrapper/').set('x-api-key', a.apiKey).set('prefer', 'respond-async').send({ url: target('sleep/4000') });
    const waited = Date.now();
    const running = await request(h.url).get(`/web-scrapper/${slow.body.request_id}`).set('x-api-key', a.apiKey).set('prefer', 'wait=3');
    expect(['received', 'processing']).toContain(running.body.status);
    expect(Date.now() - waited).toBeGreaterThanOrEqual(1_400);
  });

  it('parser and v1 answer 202 in their own shapes', async () => {
    const parse = await request(h.url).post('/documents/parse').set('x-api-key', a.apiKey).send({ url: target('sleep/2500') });
    expect(parse.status).toBe(202);
    expect(parse.body).toMatchObject({ status: 'PROCESSING' });
    const v1 = await request(h.url).post('/v1/llm-web-scrapper').set('x-api-key', a.apiKey).send({ url: target('sleep/2500') });
    expect(v1.status).toBe(202);
    expect(v1.body.request_id).toBeTruthy();
  });

  it('a failing job leaves a failed record with the family error string', async () => {
    const res = await request(h.url).post('/web-scrapper/').set('x-api-key', a.apiKey).send({ url: target('fail') });
    expect(res.status).toBe(500);
    const status = await request(h.url).get(`/web-scrapper/${res.body.request_id}`).set('x-api-key', a.apiKey);
    expect(status.body).toMatchObject({ status: 'failed', error: 'E008: scripted failure' });
    expect(status.body.error_trace).toBeUndefined();
  });
});

describe('isolation between accounts', () => {
  it("account B gets 404 for account A's request ids in every family", async () => {
    const scrape = await request(h.url).post('/web-scrapper/').set('x-api-key', a.apiKey).send({ url: target('sleep/1') });
    const parse = await request(h.url).post('/documents/parse').set('x-api-key', a.apiKey).send({ url: target('sleep/1') });
    const v1 = await request(h.url).post('/v1/llm-web-scrapper').set('x-api-key', a.apiKey).send({ url: target('sleep/1') });
    expect((await request(h.url).get(`/web-scrapper/${scrape.body.request_id}`).set('x-api-key', a.apiKey)).status).toBe(200);
    const bScrape = await request(h.url).get(`/web-scrapper/${scrape.body.request_id}`).set('x-api-key', b.apiKey);
    expect(bScrape.status).toBe(404);
    expect(bScrape.body.error).toMatch(/^E002: /);
    const bParse = await request(h.url).get(`/documents/status/${parse.body.requestId}`).set('x-api-key', b.apiKey);
    expect(bParse.status).toBe(404);
    expect(bParse.body.error).toMatch(/^404-001: /);
    const bV1 = await request(h.url).get(`/v1/llm-web-scrapper/${v1.body.request_id}`).set('x-api-key', b.apiKey);
    expect(bV1.status).toBe(404);
    expect(bV1.body.status_code).toBe(404);
  });

  it('tells an expired parse id (404-002) from one that never existed (404-001)', async () => {
    // A UUIDv7 minted 8 days ago: its time says it is past the 7-day lifetime.
    const eightDaysAgo = (Date.now() - 8 * 24 * 3600 * 1000).toString(16).padStart(12, '0');
    const oldId = `${eightDaysAgo.slice(0, 8)}-${eightDaysAgo.slice(8, 12)}-7000-8000-000000000000`;
    const expired = await request(h.url).get(`/documents/status/${oldId}`).set('x-api-key', a.apiKey);
    expect(expired.status).toBe(404);
    expect(expired.body.error).toMatch(/^404-002: /);
    const neverExisted = await request(h.url).get(`/documents/status/${newRequestId()}`).set('x-api-key', a.apiKey);
    expect(neverExisted.status).toBe(404);
    expect(neverExisted.body.error).toMatch(/^404-001: /);
  });

  it('a revoked key stops working at once', async () => {
    const c = await h.account('carol');
    const ok = await request(h.url).get('/account/usage').set('x-api-key', c.apiKey);
    expect(ok.status).toBe(200);
    const [key] = await h.stores.accounts.listApiKeys(c.accountId);
    await h.stores.accounts.revokeApiKey(key.keyId);
    const after = await request(h.url).get('/account/usage').set('x-api-key', c.apiKey);
    expect(after.status).toBe(401);
  });
});

describe('paths and ids', () => {
  it('matches paths with and without a trailing slash and sets X-Request-ID everywhere', async () => {
    const withSlash = await request(h.url).post('/v1/llm-web-scrapper/').set('x-api-key', a.apiKey).send({ url: target('sleep/1') });
    expect(withSlash.status).toBe(200);
    const noSlash = await request(h.url).post('/web-scrapper').set('x-api-key', a.apiKey).send({ url: target('sleep/1') });
    expect(noSlash.status).toBe(200);
    const health = await request(h.url).get('/healthz');
    expect(health.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('bot webhook: 401 without a bearer token, 400 on invalid JSON, request_id in body and header', async () => {
    const none = await request(h.url).post('/bot-webhook').send({ phone_number: '+1 555 0100 200', flow_ns: 'f1s2' });
    expect(none.status).toBe(401);
    expect(none.body.request_id).toBe(none.headers['x-request-id']);
    const bad = await request(h.url).post('/bot-webhook').set('authorization', 'Bearer tok').set('content-type', 'application/json').send('{');
    expect(bad.status).toBe(400);
    expect(bad.body.request_id).toBe(bad.headers['x-request-id']);
    const missing = await request(h.url).post('/bot-webhook').set('authorization', 'Bearer tok').send({ flow_ns: 'f1s2' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/phone_number/);
  });
});
