import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newRequestId } from '@gleaner/platform';
import { serviceEnv } from './support/env.js';
import { errorFormatProblem, type ErrorFamily } from './support/error-formats.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';

/**
 * The rate limit is shared by every gateway replica (API-DECISIONS): two gateway processes on one
 * Redis prefix, one account limited to 20 per minute (all its keys together), 60 concurrent
 * requests alternating between them across the families. Exactly 20 pass; the other 40 answer 429 in their family's format
 * with Retry-After and RateLimit-* headers. The bot webhook's per-token limit is checked the same way.
 * The window slides (issue 24): a burst just before a minute boundary still counts just after it.
 * MCP protocol messages count in a log of their own (issue 36), shared the same way.
 */
const prefix = testPrefix('ratelimit');
const SECRET = 'ratelimit-secret-0123456789abcdef';
const LIMIT = 20;
// The bot webhook is limited per bearer token at the service default.
const env = serviceEnv(prefix, { GLEANER_SECRET: SECRET, DEFAULT_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
let gateways: GatewayProcess[];
let test: TestStores;
let limited: CreatedAccount;
let limitedSecondKey: string;
let other: CreatedAccount;

beforeAll(async () => {
  test = openTestStores(prefix, SECRET);
  gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
  limited = await createAccountWithKey(test.stores, 'limited', { ratePerMinute: LIMIT });
  limitedSecondKey = (await test.stores.accounts.createApiKey(limited.accountId)).apiKey;
  other = await createAccountWithKey(test.stores, 'other', { ratePerMinute: LIMIT });
}, 60_000);

afterAll(async () => {
  await Promise.all((gateways ?? []).map((g) => g.process.kill()));
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sleeps until `before` ms ahead of the next minute boundary (of the host's clock, Redis's too). */
async function untilBeforeMinute(before: number): Promise<number> {
  const toBoundary = 60_000 - (Date.now() % 60_000);
  await sleep(toBoundary > before ? toBoundary - before : toBoundary + 60_000 - before);
  return Date.now() + before;
}

interface Shot {
  family: ErrorFamily;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

interface Hit {
  shot: Shot;
  gateway: number;
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

async function fire(gatewayIndex: number, shot: Shot): Promise<Hit> {
  const res = await fetch(`${gateways[gatewayIndex].url}${shot.path}`, {
    method: shot.method,
    headers: { ...shot.headers, ...(shot.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: shot.body === undefined ? undefined : JSON.stringify(shot.body),
  });
  return { shot, gateway: gatewayIndex, status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

/** What every 429 must carry: the family's format, Retry-After and the RateLimit-* trio (MCP protocol messages: ten times the limit). */
function rejectionProblems(hit: Hit): string[] {
  const limit = hit.shot.family === 'mcp' ? 10 * LIMIT : LIMIT;
  const problems: string[] = [];
  const format = errorFormatProblem(hit.shot.family, hit.json, 429, hit.headers.get('x-request-id') ?? undefined);
  if (format) problems.push(format);
  const code = { scraper: /^E429: /, account: /^E429: /, parser: /^429-001: /, v1: /./, bot: /./, mcp: /^E429: / }[hit.shot.family];
  // /mcp answers a JSON-RPC error: its text is error.message.
  const error = hit.shot.family === 'mcp' ? (hit.json.error as { message?: unknown } | undefined)?.message : hit.json.error;
  if (!code.test(String(error))) problems.push(`error ${JSON.stringify(hit.json.error)}`);
  const retryAfter = Number(hit.headers.get('retry-after'));
  const reset = Number(hit.headers.get('ratelimit-reset'));
  if (!(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60)) problems.push(`Retry-After ${hit.headers.get('retry-after')}`);
  if (hit.headers.get('ratelimit-limit') !== String(limit)) problems.push(`RateLimit-Limit ${hit.headers.get('ratelimit-limit')}`);
  if (hit.headers.get('ratelimit-remaining') !== '0') problems.push(`RateLimit-Remaining ${hit.headers.get('ratelimit-remaining')}`);
  if (!(Number.isInteger(reset) && reset >= 1 && reset <= 60 && reset === retryAfter)) problems.push(`RateLimit-Reset ${hit.headers.get('ratelimit-reset')} (Retry-After ${retryAfter})`);
  if (!hit.headers.get('x-request-id')) problems.push('no X-Request-ID');
  return problems.map((p) => `${hit.shot.method} ${hit.shot.path} via gateway ${hit.gateway}: ${p}`);
}

function apiKeyShots(apiKey: string): Shot[] {
  const h = { 'x-api-key': apiKey };
  return [
    { family: 'scraper', method: 'GET', path: `/web-scrapper/${newRequestId()}`, headers: h },
    { family: 'scraper', method: 'POST', path: '/web-scrapper/', headers: h, body: { output_type: 'markdown' } },
    { family: 'v1', method: 'GET', path: `/v1/llm-web-scrapper/${newRequestId()}`, headers: h },
    { family: 'v1', method: 'POST', path: '/v1/llm-web-scrapper', headers: h, body: { selector: 'p' } },
    { family: 'parser', method: 'GET', path: `/documents/status/${newRequestId()}`, headers: h },
    { family: 'parser', method: 'POST', path: '/documents/parse', headers: h, body: { type: 'pdf' } },
    { family: 'account', method: 'GET', path: '/account/usage', headers: h },
  ];
}

/** 60 requests at once, alternating between the two gateways. */
async function burst(shots: Shot[], total = 60): Promise<Hit[]> {
  return Promise.all(Array.from({ length: total }, (_, i) => fire(i % 2, shots[i % shots.length])));
}

describe('across a minute boundary', () => {
  it('20 pass a second before the minute, and none of 20 more half a second after it: at most the limit in any 60 s', async () => {
    const account = await createAccountWithKey(test.stores, 'boundary', { ratePerMinute: LIMIT });
    const shots = apiKeyShots(account.apiKey);
    const boundary = await untilBeforeMinute(2_000);
    const firstSent = Date.now();
    const before = await burst(shots, LIMIT);
    const firstAnswered = Date.now();
    // The premise: the whole first burst was answered before the boundary.
    expect(firstAnswered).toBeLessThan(boundary);
    expect(before.filter((h) => h.status === 429)).toHaveLength(0);
    await sleep(boundary + 500 - Date.now());
    const secondSent = Date.now();
    // A fixed minute window would let all of these through (issue 24 measured 120 in 2.9 s at 60/min).
    const after = await burst(shots, LIMIT);
    const secondAnswered = Date.now();
    expect(after.filter((h) => h.status !== 429).map((h) => `${h.shot.method} ${h.shot.path}: ${h.status}`)).toEqual([]);
    expect(after.flatMap(rejectionProblems)).toEqual([]);
    // Retry-After is when the first burst's oldest request leaves the window: a minute after it was let through.
    const retryAfter = after.map((h) => Number(h.headers.get('retry-after')));
    expect(Math.min(...retryAfter)).toBeGreaterThanOrEqual(Math.floor(60 - (secondAnswered - firstSent) / 1000));
    expect(Math.max(...retryAfter)).toBeLessThanOrEqual(Math.ceil(60 - (secondSent - firstAnswered) / 1000));
  }, 130_000);
});

describe('API keys', () => {
  it('60 concurrent requests over two gateways: exactly 20 pass, 40 answer 429 in their family format', async () => {
    const hits = await burst(apiKeyShots(limited.apiKey));
    const passed = hits.filter((h) => h.status !== 429);
    const refused = hits.filter((h) => h.status === 429);
    expect([passed.length, refused.length]).toEqual([LIMIT, 60 - LIMIT]);
    // Allowed answers are the endpoints' own (no work is queued: the bodies are invalid, the ids unknown).
    const ownAnswer = (shot: Shot) => (shot.path === '/account/usage' ? 200 : shot.method === 'POST' ? 400 : 404);
    expect(passed.filter((h) => h.status !== ownAnswer(h.shot)).map((h) => `${h.shot.method} ${h.shot.path}: ${h.status}`)).toEqual([]);
    // One shared counter: the allowed answers saw every remaining count from 19 down to 0 exactly once.
    expect(passed.map((h) => Number(h.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    for (const h of passed) expect(h.headers.get('ratelimit-limit')).toBe(String(LIMIT));
    expect(refused.flatMap(rejectionProblems)).toEqual([]);
    // Both replicas enforced the shared limit, in every family.
    expect(new Set(refused.map((h) => h.gateway))).toEqual(new Set([0, 1]));
    expect(new Set(refused.map((h) => h.shot.family))).toEqual(new Set(['scraper', 'v1', 'parser', 'account']));
    // Still refused afterwards, on either gateway.
    for (const g of [0, 1]) expect((await fire(g, apiKeyShots(limited.apiKey)[0])).status).toBe(429);
  }, 60_000);

  it('another account is unaffected; another key of the same account shares its limit (issue 37)', async () => {
    const first = await fire(0, apiKeyShots(other.apiKey)[6]);
    const second = await fire(1, apiKeyShots(other.apiKey)[0]);
    expect([first.status, second.status]).toEqual([200, 404]);
    expect([first.headers.get('ratelimit-remaining'), second.headers.get('ratelimit-remaining')]).toEqual([String(LIMIT - 1), String(LIMIT - 2)]);
    const sameAccount = await fire(1, apiKeyShots(limitedSecondKey)[6]);
    expect(sameAccount.status).toBe(429);
    expect(rejectionProblems(sameAccount)).toEqual([]);
  });
});

describe('MCP protocol messages', () => {
  it("count in a log of their own, shared by both gateways, at ten times the key's limit: the key's API budget stays whole", async () => {
    const chatty = await createAccountWithKey(test.stores, 'mcp-chatty', { ratePerMinute: LIMIT });
    // No session id: the MCP endpoint's own answer is 400 (send initialize first).
    const shot: Shot = { family: 'mcp', method: 'POST', path: '/mcp', headers: { 'x-api-key': chatty.apiKey }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } };
    const hits = await burst([shot], 10 * LIMIT + 10);
    const refused = hits.filter((h) => h.status === 429);
    expect([hits.length - refused.length, refused.length]).toEqual([10 * LIMIT, 10]);
    expect(new Set(hits.filter((h) => h.status !== 429).map((h) => h.status))).toEqual(new Set([400]));
    expect(refused.flatMap(rejectionProblems)).toEqual([]);
    // Both replicas enforce the shared log (which of them refused the burst's last ten is timing).
    for (const g of [0, 1]) expect((await fire(g, shot)).status).toBe(429);
    // The API requests of the key still have their whole budget.
    const api = await fire(0, apiKeyShots(chatty.apiKey)[0]);
    expect([api.status, api.headers.get('ratelimit-remaining')]).toEqual([404, String(LIMIT - 1)]);
  }, 60_000);
});

describe('bot webhook bearer tokens', () => {
  it('60 concurrent calls with one token over two gateways: exactly 20 pass, 40 answer 429 in the bot format', async () => {
    // Invalid bodies: the limit is taken before validation, and no bot-connector runs here.
    const shot: Shot = { family: 'bot', method: 'POST', path: '/bot-webhook', headers: { authorization: 'Bearer token-limited-0123456789' }, body: { flow_ns: 'f1' } };
    const hits = await burst([shot]);
    const passed = hits.filter((h) => h.status !== 429);
    const refused = hits.filter((h) => h.status === 429);
    expect([passed.length, refused.length]).toEqual([LIMIT, 60 - LIMIT]);
    expect(new Set(passed.map((h) => h.status))).toEqual(new Set([400]));
    expect(passed.map((h) => Number(h.headers.get('ratelimit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: LIMIT }, (_, i) => i));
    expect(refused.flatMap(rejectionProblems)).toEqual([]);
    expect(new Set(refused.map((h) => h.gateway))).toEqual(new Set([0, 1]));

    const otherToken = await fire(1, { ...shot, headers: { authorization: 'Bearer token-other-9876543210' } });
    expect([otherToken.status, otherToken.headers.get('ratelimit-remaining')]).toEqual([400, String(LIMIT - 1)]);
  }, 60_000);
});
