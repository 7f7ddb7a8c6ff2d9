import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newRequestId } from '@gleaner/platform';
import { startFakeBotPlatform, type FakeBotPlatform } from './fakes/bot-platform.js';
import { startFakeAnthropic, type FakeProvider, type AnthropicScript } from './fakes/llm-providers.js';
import { gleanerCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { errorFormatProblem, type ErrorFamily } from './support/error-formats.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { verifyWebhookSignature } from '@gleaner/safe-fetch';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, dumpValuesUnderPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';

/**
 * Isolation and secrecy across real processes: two gateways (one in development mode, one in
 * production mode) on one Redis prefix, scraper and parser workers and the bot connector, all
 * logging at debug level, and the webhook dispatcher signing real deliveries. tests/backbone.test.ts already shows (in-process) that B gets 404 for
 * A's ids and that a revoked key answers 401 on /account/usage; this file covers what it does
 * not: no existence oracle, v1 read budgets, cache, LLM-key fallback, usage, webhook secrets and
 * subscriptions, revocation through the CLI on every gateway and family, error_trace by mode, and secrets in
 * logs, Redis and answers.
 */
const prefix = testPrefix('isolation');
const SECRET = 'isolation-master-secret-0123456789abcdef';
const A_LLM_SECRET = 'sk-ant-ISOLATION-alice-llm-secret-9f8e7d';
const B_LLM_SECRET = 'sk-ant-ISOLATION-bob-llm-secret-1a2b3c';
const BOT_TOKEN = 'bot-token-ISOLATION-accepted-5e6f7a8b';
const BOT_TOKEN_REJECTED = 'bot-token-ISOLATION-rejected-0c1d2e3f';
const FLOW = 'f190385s3400927';

const base = serviceEnv(prefix, { GLEANER_SECRET: SECRET, LOG_LEVEL: 'debug', DEFAULT_RATE_LIMIT_PER_MINUTE: '100000', SYNC_WINDOW_MS: '15000' });
let site: Awaited<ReturnType<typeof startPageServer>>;
let anthropic: FakeProvider<AnthropicScript>;
let botPlatform: FakeBotPlatform;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let devGateway: GatewayProcess;
let prodGateway: GatewayProcess;
const services: ServiceProcess[] = [];
let test: TestStores;
let alice: CreatedAccount;
/** A request the scraper worker failed: its id must show up in the worker's log (the capture works). */
let failedRequestId = '';
let aliceSecondKey: CreatedAccount;
let bob: CreatedAccount;
/** Every answer of this file (status, headers, body) and the key that asked, to search for secrets at the end. */
const answersSeen: Array<{ route: string; apiKey?: string; text: string }> = [];
/** Every webhook secret an account had during this file, with its owner's API keys. */
const webhookSecretsSeen = new Map<string, { secret: string; ownerKeys: string[] }>();

beforeAll(async () => {
  site = await startPageServer({
    '/page': html('<article><h1>Isolation page</h1><p>Content that every account may scrape on its own behalf.</p></article>', '<title>Isolation</title>'),
    '/other': html('<article><h1>Other page</h1><p>Another article used by the usage test only.</p></article>', '<title>Other</title>'),
    '/doc.txt': (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('A plain text document for the parser.'),
    '/gone': (_q, s) => s.writeHead(410, { 'content-type': 'text/html' }).end('<p>gone</p>'),
  });
  anthropic = await startFakeAnthropic({ apiKeys: [A_LLM_SECRET, B_LLM_SECRET] });
  botPlatform = await startFakeBotPlatform({ tokens: [BOT_TOKEN], userFields: [{ name: 'city' }], subFlows: [{ name: 'Welcome', sub_flow_ns: FLOW }], subscribers: [{ phone: '+573001234567', user_id: '573001234567', name: 'Ana' }] });
  test = openTestStores(prefix, SECRET);
  // The scraper worker runs in development mode so that failures keep their trace; whether a
  // caller sees it is the gateway's decision, which is what the error_trace test is about.
  services.push(startService('scraper-worker', { ...base, NODE_ENV: 'development', SCRAPER_CONCURRENCY: '2' }));
  services.push(startService('parser-worker', { ...base, PARSER_CONCURRENCY: '1' }));
  services.push(startService('bot-connector', { ...base, BOT_PLATFORM_BASE_URL: botPlatform.baseUrl, BOT_PLATFORM_TIMEOUT_MS: '2000' }));
  services.push(startService('webhook-dispatcher', { ...base, WEBHOOK_BACKOFF_BASE_MS: '100' }));
  receiver = await startWebhookReceiver([200]);
  [devGateway, prodGateway] = await Promise.all([startGatewayProcess({ ...base, NODE_ENV: 'development' }), startGatewayProcess({ ...base, NODE_ENV: 'production' })]);
  await Promise.all(services.map((s) => s.waitFor(/ready/)));
  alice = await createAccountWithKey(test.stores, 'alice');
  aliceSecondKey = { ...alice, ...(await test.stores.accounts.createApiKey(alice.accountId).then((k) => ({ apiKey: k.apiKey, keyId: k.record.keyId }))) };
  bob = await createAccountWithKey(test.stores, 'bob');
}, 120_000);

afterAll(async () => {
  await Promise.all([devGateway?.process.kill(), prodGateway?.process.kill(), ...services.map((s) => s.kill())]);
  await site?.close();
  await anthropic?.close();
  await botPlatform?.close();
  await receiver?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

async function call(gw: GatewayProcess, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(`${gw.url}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  answersSeen.push({ route: `${method} ${path}`, apiKey: headers['x-api-key'], text: `${res.status} ${JSON.stringify([...res.headers])}\n${text}` });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // 204 and the like
  }
  return { status: res.status, headers: res.headers, text, json };
}
const as = (account: { apiKey: string }, gw: GatewayProcess = devGateway) => ({
  get: (path: string) => call(gw, 'GET', path, { 'x-api-key': account.apiKey }),
  post: (path: string, body: unknown) => call(gw, 'POST', path, { 'x-api-key': account.apiKey }, body),
  del: (path: string) => call(gw, 'DELETE', path, { 'x-api-key': account.apiKey }),
});
const page = (p = '/page') => `${site.url}${p}`;

describe('requests of one account are invisible to another', () => {
  it("B cannot tell A's request ids from ids that never existed, in every family, on both gateways", async () => {
    const scrape = await as(alice).post('/web-scrapper/', { url: page() });
    const v1 = await as(alice, prodGateway).post('/v1/llm-web-scrapper', { url: page(), use_llm: false });
    const parse = await as(alice).post('/documents/parse', { url: page('/doc.txt'), type: 'txt' });
    expect([scrape.status, v1.status, parse.status]).toEqual([200, 200, 200]);
    const families: Array<[ErrorFamily, string, string]> = [
      ['scraper', '/web-scrapper/', scrape.json.request_id as string],
      ['v1', '/v1/llm-web-scrapper/', v1.json.request_id as string],
      ['parser', '/documents/status/', parse.json.requestId as string],
    ];
    for (const gw of [devGateway, prodGateway]) {
      for (const [family, path, id] of families) {
        expect((await as(alice, gw).get(`${path}${id}`)).status).toBe(200);
        const theirs = await as(bob, gw).get(`${path}${id}`);
        const never = await as(bob, gw).get(`${path}${newRequestId()}`);
        expect([family, theirs.status, errorFormatProblem(family, theirs.json, theirs.status)]).toEqual([family, 404, null]);
        // Same status, same body: nothing says "exists, but not yours".
        expect({ status: theirs.status, body: theirs.json }).toEqual({ status: never.status, body: never.json });
      }
    }
  }, 60_000);

  it("B's reads of A's v1 id do not spend A's budget of 3 status reads", async () => {
    const v1 = await as(alice).post('/v1/llm-web-scrapper', { url: page(), use_llm: false });
    const id = v1.json.request_id as string;
    for (let i = 0; i < 5; i++) expect((await as(bob, i % 2 ? prodGateway : devGateway).get(`/v1/llm-web-scrapper/${id}`)).status).toBe(404);
    const reads = [];
    for (let i = 0; i < 4; i++) reads.push((await as(alice).get(`/v1/llm-web-scrapper/${id}`)).status);
    expect(reads).toEqual([200, 200, 200, 429]);
  });

  it('cache entries stay per account: a miss for B, then each account gets its own entry back', async () => {
    const url = page('/page?cache=1');
    const first = await as(alice).post('/web-scrapper/', { url });
    expect(first.status).toBe(200);
    expect((await as(alice).post('/web-scrapper/', { url, use_cache: true })).json.request_id).toBe(first.json.request_id);
    const miss = await as(bob, prodGateway).post('/web-scrapper/', { url, use_cache: true });
    expect({ status: miss.status, body: miss.json }).toEqual({ status: 404, body: { error: 'E002: No cached result for this URL' } });
    const own = await as(bob).post('/web-scrapper/', { url });
    expect(own.status).toBe(200);
    expect(own.json.request_id).not.toBe(first.json.request_id);
    // B's scrape of the same URL neither replaced nor exposed A's entry.
    expect((await as(alice, prodGateway).post('/web-scrapper/', { url, use_cache: true })).json).toMatchObject({ cached: true, request_id: first.json.request_id });
    expect((await as(bob, prodGateway).post('/web-scrapper/', { url, use_cache: true })).json).toMatchObject({ cached: true, request_id: own.json.request_id });
  }, 60_000);

  it("LLM keys: B never lists, deletes, names or falls back to A's key", async () => {
    const added = await as(alice).post('/account/llm-keys', { provider: 'anthropic', key: A_LLM_SECRET, base_url: anthropic.baseUrl, model: 'claude-test-model' });
    expect(added.status).toBe(201);
    const keyId = added.json.id as string;
    const llm = await as(alice).post('/web-scrapper/', { url: page(), use_llm: true, prompt: 'Give the title.' });
    expect(llm.status).toBe(200);
    // The provider was called with A's secret (x-api-key or bearer, as the client chooses).
    expect(JSON.stringify(anthropic.requests.at(-1)?.headers)).toContain(A_LLM_SECRET);
    const providerCalls = anthropic.requests.length;

    expect((await as(bob).get('/account/llm-keys')).json).toEqual({ keys: [] });
    const del = await as(bob, prodGateway).del(`/account/llm-keys/${keyId}`);
    expect({ status: del.status, body: del.json }).toEqual({ status: 404, body: { error: 'E002: No such language-model key' } });
    // B has no key of its own: A's key is not a fallback, whichever way B asks.
    const noKey = await as(bob).post('/web-scrapper/', { url: page(), use_llm: true, prompt: 'Give the title.' });
    expect({ status: noKey.status, body: noKey.json }).toEqual({ status: 400, body: { error: expect.stringMatching(/^E009: no language-model key is registered/) } });
    const named = await as(bob).post('/web-scrapper/', { url: page(), use_llm: true, prompt: 'Give the title.', llm_key_id: keyId });
    expect({ status: named.status, body: named.json }).toEqual({ status: 400, body: { error: `E009: unknown llm_key_id '${keyId}'` } });
    const v1 = await as(bob, prodGateway).post('/v1/llm-web-scrapper', { url: page(), use_llm: true, prompt: 'Give the title.' });
    expect([v1.status, v1.json.status_code]).toEqual([400, 400]);
    expect(anthropic.requests.length).toBe(providerCalls);
    // A's key survived B's attempts; B's own key is listed to B only.
    expect(((await as(alice).get('/account/llm-keys')).json.keys as Array<{ id: string }>).map((k) => k.id)).toEqual([keyId]);
    const bobKey = await as(bob).post('/account/llm-keys', { provider: 'anthropic', key: B_LLM_SECRET, base_url: anthropic.baseUrl });
    expect(((await as(bob).get('/account/llm-keys')).json.keys as Array<{ id: string }>).map((k) => k.id)).toEqual([bobKey.json.id]);
    expect(((await as(alice).get('/account/llm-keys')).json.keys as Array<{ id: string }>).map((k) => k.id)).toEqual([keyId]);
  }, 60_000);

  it("usage: A's activity changes A's counters and leaves B's untouched", async () => {
    const bobBefore = (await as(bob).get('/account/usage')).json;
    const aliceBefore = (await as(alice).get('/account/usage')).json as { credits_used: number; requests: Record<string, number> };
    expect((await as(alice).post('/web-scrapper/', { url: page('/other') })).status).toBe(200);
    expect((await as(alice, prodGateway).post('/v1/llm-web-scrapper', { url: page('/other'), use_llm: false })).status).toBe(200);
    expect((await as(alice).post('/documents/parse', { url: page('/doc.txt'), type: 'txt' })).status).toBe(200);
    const aliceAfter = (await as(alice).get('/account/usage')).json as typeof aliceBefore;
    expect(aliceAfter.requests).toEqual({ scrape: aliceBefore.requests.scrape + 1, 'scrape-v1': aliceBefore.requests['scrape-v1'] + 1, parse: aliceBefore.requests.parse + 1, crawl: 0, batch: 0, map: 0 });
    expect(aliceAfter.credits_used).toBe(aliceBefore.credits_used + 1);
    expect((await as(bob, prodGateway).get('/account/usage')).json).toEqual(bobBefore);
  }, 60_000);

  it('webhook secrets differ per account, and rotating A leaves B alone', async () => {
    const a1 = (await as(alice).get('/account/webhook-secret')).json.secret as string;
    const b1 = (await as(bob).get('/account/webhook-secret')).json.secret as string;
    webhookSecretsSeen.set('webhook secret (alice, first)', { secret: a1, ownerKeys: [alice.apiKey, aliceSecondKey.apiKey] });
    webhookSecretsSeen.set('webhook secret (bob)', { secret: b1, ownerKeys: [bob.apiKey] });
    expect(a1).toMatch(/^whsec_/);
    expect(b1).toMatch(/^whsec_/);
    expect(a1).not.toBe(b1);
    const rotated = (await as(alice, prodGateway).post('/account/webhook-secret/rotate', {})).json.secret as string;
    webhookSecretsSeen.set('webhook secret (alice, rotated)', { secret: rotated, ownerKeys: [alice.apiKey, aliceSecondKey.apiKey] });
    expect(rotated).not.toBe(a1);
    expect((await as(alice).get('/account/webhook-secret')).json.secret).toBe(rotated);
    expect((await as(bob, prodGateway).get('/account/webhook-secret')).json.secret).toBe(b1);
  });

  it("webhook subscriptions: B neither lists nor deletes A's; a scrape-only key gets 403; deliveries are signed with the owner's secret only", async () => {
    const sub = await as(alice).post('/account/webhooks', { url: receiver.url, families: ['scrape'] });
    expect(sub.status).toBe(201);
    const subId = sub.json.id as string;
    for (const gw of [devGateway, prodGateway]) {
      expect((await as(bob, gw).get('/account/webhooks')).json).toEqual({ webhooks: [] });
      const del = await as(bob, gw).del(`/account/webhooks/${subId}`);
      expect({ status: del.status, body: del.json }).toEqual({ status: 404, body: { error: 'E002: No such webhook subscription' } });
    }
    expect(((await as(alice, prodGateway).get('/account/webhooks')).json.webhooks as Array<{ id: string }>).map((w) => w.id)).toEqual([subId]);
    const scrapeOnly = await createAccountWithKey(test.stores, 'scrape-only', { scopes: ['scrape'] });
    for (const [method, answer] of [
      ['GET', await as(scrapeOnly).get('/account/webhooks')],
      ['POST', await as(scrapeOnly).post('/account/webhooks', { url: receiver.url })],
      ['DELETE', await as(scrapeOnly, prodGateway).del(`/account/webhooks/${subId}`)],
    ] as const) {
      expect({ method, status: answer.status, problem: errorFormatProblem('account', answer.json, answer.status) }).toEqual({ method, status: 403, problem: null });
    }

    // A's scrape reaches the subscription and its own webhook; B's scrape reaches neither.
    const mine = await as(alice).post('/web-scrapper/', { url: page(), webhook: `${receiver.url}?own` });
    const theirs = await as(bob).post('/web-scrapper/', { url: page() });
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    const got = await waitFor(() => receiver.deliveries, (d) => d.length >= 2, 30_000);
    await new Promise((r) => setTimeout(r, 500)); // B's would have arrived by now
    expect(got.map((d) => d.headers['x-request-id'])).toEqual([mine.json.request_id, mine.json.request_id]);
    const aliceSecret = (await as(alice).get('/account/webhook-secret')).json.secret as string;
    const bobSecret = (await as(bob).get('/account/webhook-secret')).json.secret as string;
    for (const d of got) {
      expect(verifyWebhookSignature(aliceSecret, d.rawBody, d.headers['x-webhook-signature'] as string)).toBe(true);
      expect(verifyWebhookSignature(bobSecret, d.rawBody, d.headers['x-webhook-signature'] as string)).toBe(false);
      // Nothing of the secret itself travels with a delivery.
      expect(JSON.stringify(d.headers) + d.rawBody).not.toContain(aliceSecret);
    }
    expect((await as(alice).del(`/account/webhooks/${subId}`)).status).toBe(204);
  }, 60_000);
});

describe('revocation', () => {
  it('a key revoked with the CLI fails at once on both gateways in every family; the account\'s other key keeps working', async () => {
    for (const gw of [devGateway, prodGateway]) expect((await as(aliceSecondKey, gw).get('/account/usage')).status).toBe(200);
    const { stdout } = await gleanerCli(['keys', 'revoke', aliceSecondKey.keyId], { REDIS_URL: base.REDIS_URL, GLEANER_REDIS_PREFIX: prefix, GLEANER_SECRET: SECRET, NODE_ENV: 'test' });
    expect(stdout).toContain(`key ${aliceSecondKey.keyId} revoked`);
    const attempts: Array<[ErrorFamily, string, string, unknown]> = [
      ['scraper', 'POST', '/web-scrapper/', { url: page() }],
      ['scraper', 'GET', `/web-scrapper/${newRequestId()}`, undefined],
      ['v1', 'POST', '/v1/llm-web-scrapper', { url: page() }],
      ['v1', 'GET', `/v1/llm-web-scrapper/${newRequestId()}`, undefined],
      ['parser', 'POST', '/documents/parse', { url: page('/doc.txt') }],
      ['parser', 'GET', `/documents/status/${newRequestId()}`, undefined],
      ['account', 'GET', '/account/usage', undefined],
      ['account', 'POST', '/account/llm-keys', { provider: 'anthropic', key: 'sk-ant-after-revocation' }],
    ];
    const wrong: string[] = [];
    for (const gw of [devGateway, prodGateway]) {
      for (const [family, method, path, body] of attempts) {
        const res = await call(gw, method, path, { 'x-api-key': aliceSecondKey.apiKey }, body);
        const problem = res.status !== 401 ? `HTTP ${res.status}` : errorFormatProblem(family, res.json, res.status);
        if (problem) wrong.push(`${method} ${path}: ${problem}`);
      }
    }
    expect(wrong).toEqual([]);
    for (const gw of [devGateway, prodGateway]) expect((await as(alice, gw).get('/account/usage')).status).toBe(200);
  }, 60_000);
});

describe('error_trace', () => {
  it('appears on a failed scrape only through the gateway running with NODE_ENV=development', async () => {
    const failed = await as(alice).post('/web-scrapper/', { url: page('/gone') });
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ status: 'failed', error: 'E008: target answered HTTP 410', error_trace: expect.stringMatching(/JobFailure.*\n\s+at /) });
    const id = failed.json.request_id as string;
    failedRequestId = id;
    const dev = await as(alice, devGateway).get(`/web-scrapper/${id}`);
    const prod = await as(alice, prodGateway).get(`/web-scrapper/${id}`);
    expect(dev.json).toMatchObject({ status: 'failed', error: 'E008: target answered HTTP 410', error_trace: expect.stringMatching(/\n\s+at /) });
    expect(prod.json).toEqual({ ...dev.json, error_trace: undefined });
    expect(Object.keys(prod.json)).not.toContain('error_trace');
    const prodSubmit = await as(alice, prodGateway).post('/web-scrapper/', { url: page('/gone?again') });
    expect(prodSubmit.status).toBe(500);
    expect(Object.keys(prodSubmit.json).sort()).toEqual(['error', 'request_id', 'status', 'timestamp', 'url']);
  }, 60_000);
});

describe('secrets never leak', () => {
  const secrets = () => ({
    'API key (alice)': alice.apiKey,
    'API key (alice, revoked)': aliceSecondKey.apiKey,
    'API key (bob)': bob.apiKey,
    'LLM secret (alice)': A_LLM_SECRET,
    'LLM secret (bob)': B_LLM_SECRET,
    'bot token': BOT_TOKEN,
    'bot token (rejected)': BOT_TOKEN_REJECTED,
    GLEANER_SECRET: SECRET,
  });
  /** Answers allowed to hold a webhook secret: its owner asking `/account/webhook-secret` for it. */
  const webhookSecretAnswer = (answer: { route: string; apiKey?: string }, ownerKeys: string[]) =>
    /^(GET|POST) \/account\/webhook-secret(\/rotate)?$/.test(answer.route) && ownerKeys.includes(answer.apiKey ?? '');
  const leaksIn = (texts: Array<[string, string]>) =>
    Object.entries(secrets()).flatMap(([name, secret]) => texts.filter(([, text]) => text.includes(secret)).map(([where]) => `${name} in ${where}`));
  const webhookSecretLeaksIn = (texts: Array<[string, string]>) =>
    [...webhookSecretsSeen].flatMap(([name, { secret }]) => texts.filter(([, text]) => text.includes(secret)).map(([where]) => `${name} in ${where}`));

  beforeAll(async () => {
    // The secrets as they are now (read from the store, not through an answer).
    webhookSecretsSeen.set('webhook secret (alice, current)', { secret: (await test.stores.accounts.webhookSecret(alice.accountId))!, ownerKeys: [alice.apiKey, aliceSecondKey.apiKey] });
    webhookSecretsSeen.set('webhook secret (bob, current)', { secret: (await test.stores.accounts.webhookSecret(bob.accountId))!, ownerKeys: [bob.apiKey] });
    // Bot calls: accepted token, token the platform rejects, invalid body; on both gateways.
    const bot = (gw: GatewayProcess, token: string, body: unknown) => call(gw, 'POST', '/bot-webhook', { authorization: `Bearer ${token}` }, body);
    expect((await bot(devGateway, BOT_TOKEN, { phone_number: '+57 300 123 4567', flow_ns: FLOW, user_fields: { city: 'Cali' } })).status).toBe(200);
    expect((await bot(prodGateway, BOT_TOKEN_REJECTED, { phone_number: '573001234567', flow_ns: FLOW })).status).toBe(401);
    expect((await bot(prodGateway, BOT_TOKEN, { phone_number: 'not a phone', flow_ns: FLOW })).status).toBe(400);
    // Unknown and malformed API keys, which error paths might echo.
    expect((await call(devGateway, 'GET', '/account/usage', { 'x-api-key': `${bob.apiKey}x` })).status).toBe(401);
    expect((await call(prodGateway, 'POST', '/documents/parse', { 'x-api-key': aliceSecondKey.apiKey }, { url: page('/doc.txt') })).status).toBe(401);
    expect(botPlatform.requests.some((r) => r.headers.authorization === `Bearer ${BOT_TOKEN}`)).toBe(true);
  }, 60_000);

  it('not in the output of any process (debug level)', () => {
    const outputs: Array<[string, string]> = [
      ['gateway (development)', devGateway.process.output()],
      ['gateway (production)', prodGateway.process.output()],
      ['scraper-worker', services[0].output()],
      ['parser-worker', services[1].output()],
      ['bot-connector', services[2].output()],
      ['webhook-dispatcher', services[3].output()],
    ];
    // The processes did log, and per request: an empty capture would prove nothing.
    for (const [, text] of outputs) expect(text).toMatch(/ready|listening on/);
    expect(failedRequestId).not.toBe('');
    expect(services[0].output()).toContain(failedRequestId);
    // The dispatcher signed and sent deliveries (its debug log says so): the signing path ran.
    expect(services[3].output()).toMatch(/webhook delivered/);
    expect(webhookSecretsSeen.size).toBeGreaterThanOrEqual(4);
    expect(leaksIn(outputs)).toEqual([]);
    expect(webhookSecretLeaksIn(outputs)).toEqual([]);
  });

  it('not in any Redis key or value under the test prefix', async () => {
    const dump = await dumpValuesUnderPrefix(test.redis, prefix);
    expect(dump.size).toBeGreaterThan(20);
    const entries = [...dump].map(([key, value]): [string, string] => [key, `${key}\n${value}`]);
    expect(leaksIn(entries)).toEqual([]);
    expect(webhookSecretLeaksIn(entries)).toEqual([]);
  });

  it('not in any answer of this file, error answers included', () => {
    expect(answersSeen.filter((a) => /^[45]\d\d /.test(a.text)).length).toBeGreaterThan(20);
    const answers = answersSeen.map((a, i): [string, string] => [`answer #${i} to ${a.route} (${a.text.slice(0, 60)})`, a.text]);
    expect(leaksIn(answers)).toEqual([]);
    // A webhook secret appears only where its owner asked for it, and was really seen there (the search works).
    const leaks = [...webhookSecretsSeen].flatMap(([name, { secret, ownerKeys }]) =>
      answersSeen.filter((a) => a.text.includes(secret) && !webhookSecretAnswer(a, ownerKeys)).map((a) => `${name} in answer to ${a.route}`),
    );
    expect(leaks).toEqual([]);
    expect(answersSeen.some((a) => a.text.includes(webhookSecretsSeen.get('webhook secret (alice, rotated)')!.secret))).toBe(true);
  });
});
