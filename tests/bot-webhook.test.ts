import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@gleaner/platform';
import { loadBotConnectorConfig, startBotConnector, type RunningService } from '@gleaner/bot-connector';
import { Sealer } from '@gleaner/store';
import { startFakeBotPlatform, type FakeBotPlatform } from './fakes/bot-platform.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness } from './support/gateway.js';
import { jsonLines, startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, redisDump, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * `/bot-webhook` through the gateway, the bot queue and a real bot-connector, against a stand-in
 * platform. The main setup runs the production defaults (25 s call deadline, 16 calls in flight,
 * 8 s per platform request): the 60-call test once flaked with a 1.5 s platform timeout because
 * the stand-in, the gateway and the connector share this one process, and under CPU contention a
 * request's "platform time" was mostly time spent waiting for this process (the stand-in answers
 * in microseconds); timeouts are not retried, so each such wait ended its call with 500.
 */
const prefix = testPrefix('bot');
const TOKEN = 'platform-token-0123456789';
const FLOW = 'f190385s3400927';
let fake: FakeBotPlatform;
let h: GatewayHarness;
let connector: RunningService;

beforeAll(async () => {
  fake = await startFakeBotPlatform({
    tokens: [TOKEN],
    userFields: [{ name: 'city' }, { name: 'plan' }],
    subFlows: [{ name: 'Welcome', sub_flow_ns: FLOW }],
    subscribers: [{ phone: '+573001234567', user_id: '573001234567', name: 'Ana' }],
  });
  h = await GatewayHarness.start(prefix, { DEFAULT_RATE_LIMIT_PER_MINUTE: '1000' });
  connector = await startBotConnector(loadBotConnectorConfig(serviceEnv(prefix, { BOT_PLATFORM_BASE_URL: fake.baseUrl })), createLogger('bot-test', 'error'));
});

afterAll(async () => {
  await connector?.stop();
  await h?.stop();
  await fake?.close();
  await deleteKeysWithPrefix(prefix);
});

// A fault a test queued and its call did not use (a call that ended at its deadline before its
// second lookup) must not answer the next test's first request.
afterEach(() => fake?.clearFaults());

/** Request ids of the bot calls answered in this file; each call's job is named after its id. */
const answeredRequestIds = new Set<string>();
const call = async (body: unknown, token = TOKEN, gateway = h) => {
  const res = await request(gateway.url).post('/bot-webhook').set('authorization', `Bearer ${token}`).send(body as object);
  if (typeof res.body?.request_id === 'string') answeredRequestIds.add(res.body.request_id);
  return res;
};
/** The seeded subscriber every "existing user" call must find. */
const ana = () => [...fake.subscribers.values()].find((s) => s.name === 'Ana')!;

const tokenSealer = new Sealer(serviceEnv(prefix).GLEANER_SECRET, 'bot-token');
/** A value sealed by Sealer: v1.<12-byte iv>.<16-byte tag>.<ciphertext>, base64url. */
const SEALED_VALUE = /v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+/g;
/** Where a Redis dump holds a bot token: in clear, in a job's `sealedToken` field, or sealed under any name. */
function tokenTraces(dump: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [key, value] of dump) {
    const text = `${key}\n${value}`;
    if (text.includes(TOKEN)) found.push(`${key}: the token in clear`);
    if (text.includes('sealedToken')) found.push(`${key}: a sealedToken field`);
    for (const sealed of text.match(SEALED_VALUE) ?? []) {
      let opened: string;
      try {
        opened = tokenSealer.open(sealed);
      } catch {
        continue; // not sealed by the bot-token sealer
      }
      found.push(`${key}: a sealed ${opened === TOKEN ? 'token' : 'value'}`);
    }
  }
  return found;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('bot webhook', () => {
  it('existing user: 200 with every step reported and the request id in body and header', async () => {
    const res = await call({ phone_number: '+57 300 123 4567', flow_ns: FLOW, user_fields: { city: 'Bogotá' } });
    expect(res.status).toBe(200);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(res.body.user_ns_retrieval).toEqual({ success: true, message: 'User found', user_ns: ana().user_ns });
    expect(res.body.custom_fields_update).toMatchObject({ success: true, details: [{ field: 'city', status: 'updated' }] });
    expect(res.body.flow_sent).toMatchObject({ success: true });
    expect(fake.sentFlows.at(-1)?.sub_flow_ns).toBe(FLOW);
  });

  it('new user: created, then fields and flow', async () => {
    const before = fake.requestsTo('POST /subscriber/create').length;
    const res = await call({ phone_number: '(49) 151-1234-5678', flow_ns: FLOW });
    expect(res.status).toBe(200);
    expect(fake.requestsTo('POST /subscriber/create').length).toBe(before + 1);
  });

  it('phone formats reach the seeded user by its WhatsApp id: found, never created', async () => {
    const creates = fake.requestsTo('POST /subscriber/create').length;
    const lookups = fake.requestsTo('GET /subscriber/get-info-by-user-id').length;
    const formats = ['+57 300 123 4567', '+57 (300) 123-4567', '57.300.123.4567', ' 573001234567 '];
    for (const phone_number of formats) {
      const res = await call({ phone_number, flow_ns: FLOW });
      expect({ phone_number, status: res.status, user_ns_retrieval: res.body.user_ns_retrieval }).toEqual({
        phone_number,
        status: 200,
        user_ns_retrieval: { success: true, message: 'User found', user_ns: ana().user_ns },
      });
    }
    expect(fake.requestsTo('GET /subscriber/get-info-by-user-id').slice(lookups).map((r) => r.query.user_id)).toEqual(formats.map(() => '573001234567'));
    expect(fake.requestsTo('POST /subscriber/create').length).toBe(creates);
  });

  it('a user the platform knows only by phone is found by the phone search, whatever the format', async () => {
    const ben = fake.addSubscriber({ phone: '+4930123456789', user_id: null, name: 'Ben' });
    const creates = fake.requestsTo('POST /subscriber/create').length;
    for (const phone_number of ['+49 30 123456789', '(49) 30-1234-56789']) {
      const res = await call({ phone_number, flow_ns: FLOW });
      expect({ phone_number, status: res.status, user_ns_retrieval: res.body.user_ns_retrieval }).toEqual({
        phone_number,
        status: 200,
        user_ns_retrieval: { success: true, message: 'User found by phone number search', user_ns: ben.user_ns },
      });
    }
    expect(fake.requestsTo('GET /subscribers').at(-1)?.query.phone).toBe('+4930123456789');
    expect(fake.requestsTo('POST /subscriber/create').length).toBe(creates);
  });

  it('creation failing: 404', async () => {
    fake.failNext('POST /subscriber/create', { status: 422, body: { message: 'The phone has already been taken.' } });
    const res = await call({ phone_number: '+44 7700 900 001', flow_ns: FLOW });
    expect(res.status).toBe(404);
    expect(res.body.request_id).toBeTruthy();
    expect(typeof res.body.error).toBe('string');
  });

  it('a field update partly failing: 206 with per-field details', async () => {
    const res = await call({ phone_number: '573001234567', flow_ns: FLOW, user_fields: { city: 'Cali', unknown_field: 'x' } });
    expect(res.status).toBe(206);
    const details = Object.fromEntries(res.body.custom_fields_update.details.map((d: { field: string; status: string }) => [d.field, d.status]));
    expect(details.city).toBe('updated');
    expect(details.unknown_field).toMatch(/^failed: /);
    expect(res.body.flow_sent.success).toBe(true);
  });

  it('the flow failing: 206', async () => {
    const res = await call({ phone_number: '573001234567', flow_ns: 'f190385s9999999' });
    expect(res.status).toBe(206);
    expect(res.body.flow_sent.success).toBe(false);
  });

  it('lookup failing twice, then succeeding: 200 after three tries', async () => {
    const before = fake.requestsTo('GET /subscriber/get-info-by-user-id').length;
    fake.failNext('GET /subscriber/get-info-by-user-id', { status: 502 }, 2);
    const res = await call({ phone_number: '573001234567', flow_ns: FLOW });
    expect(res.status).toBe(200);
    expect(fake.requestsTo('GET /subscriber/get-info-by-user-id').length - before).toBe(3);
  });

  it('the platform rejecting the token: 401', async () => {
    const res = await call({ phone_number: '573001234567', flow_ns: FLOW }, 'wrong-token');
    expect(res.status).toBe(401);
  });

  it('a platform that hangs: 500 with a clear message once the platform timeout (8 s) passes, never a hung request', async () => {
    fake.failNext('GET /subscriber/get-info-by-user-id', { hang: true }, 1);
    const started = Date.now();
    const pending = call({ phone_number: '573001234567', flow_ns: FLOW });
    // While the call runs its job holds the token, sealed: what the "never stores the token" test
    // looks for after the calls end. Checked here, so that test is known to see a token it missed.
    await waitFor(() => fake.requests.some((r) => r.answeredWith === 'hang' && r.at >= started), (hanging) => hanging, 5_000);
    expect(tokenTraces(await redisDump(prefix))).toEqual(expect.arrayContaining([expect.stringMatching(/: a sealedToken field$/), expect.stringMatching(/: a sealed token$/)]));
    const res = await pending;
    expect(res.status).toBe(500);
    expect(res.body.error).toBe('Could not look up the user on the bot platform: Bot platform did not answer within 8 s');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);

  it('a proxy in front of the platform answering with HTML error pages: lookups retried, a send refused that way is reported', async () => {
    fake.failNext('GET /subscriber/get-info-by-user-id', { status: 502, html: true }, 2);
    fake.failNext('POST /subscriber/send-sub-flow', { status: 503, html: true }, 1);
    const before = fake.requestsTo('GET /subscriber/get-info-by-user-id').length;
    const res = await call({ phone_number: '573001234567', flow_ns: FLOW });
    expect(res.status).toBe(206);
    expect(fake.requestsTo('GET /subscriber/get-info-by-user-id').length - before).toBe(3);
    expect(res.body.user_ns_retrieval).toMatchObject({ success: true });
    expect(res.body.flow_sent).toEqual({ success: false, message: 'Flow not sent: Bot platform failed while sending the sub flow (HTTP 503): answered with a non-JSON error page' });
  });

  it("works to the caller's deadline: lookups held up by 429s end the call with the connector's own 500, and nothing reaches the platform afterwards", async () => {
    const hurried = await GatewayHarness.start(prefix, { DEFAULT_RATE_LIMIT_PER_MINUTE: '1000', BOT_CALL_TIMEOUT_MS: '2500' });
    try {
      const writes = () => fake.requestsTo('POST /subscriber/create').length + fake.requestsTo('POST /subscriber/send-sub-flow').length;
      const writesBefore = writes();
      // Left alone, the lookups would take 4 s (two 2 s waits) and then create the user and send
      // the flow to a caller who got its 500 at 2.5 s, and who may already be retrying.
      fake.failNext('GET /subscriber/get-info-by-user-id', { status: 429, body: { message: 'Too Many Attempts.' }, headers: { 'retry-after': '2' } }, 2);
      const started = Date.now();
      const res = await call({ phone_number: '+61 412 345 999', flow_ns: FLOW }, TOKEN, hurried);
      const answeredAt = Date.now();
      expect(res.status).toBe(500);
      expect(res.body.error).toMatch(/^Could not look up the user on the bot platform: Bot platform rate limit reached|^The bot webhook was not processed within/);
      expect(answeredAt - started).toBeLessThan(4_000);
      await sleep(Math.max(0, started + 6_000 - Date.now()));
      expect(fake.requests.filter((r) => r.at > answeredAt).map((r) => `${r.method} ${r.path}`)).toEqual([]);
      expect(writes()).toBe(writesBefore);
    } finally {
      await hurried.stop();
    }
  }, 30_000);

  it('invalid bodies: 400', async () => {
    expect((await call({ flow_ns: FLOW })).status).toBe(400);
    expect((await call({ phone_number: '12', flow_ns: FLOW })).status).toBe(400);
    expect((await call({ phone_number: '573001234567', flow_ns: FLOW, user_fields: { age: 42 } })).status).toBe(400);
    expect((await call({ phone_number: '573001234567' })).body.error).toMatch(/flow_ns/);
  });

  it('answers 60 concurrent calls for new users (default concurrency and timeouts)', async () => {
    const seenBefore = fake.requests.length;
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call({ phone_number: `+1 (555) 010-${String(1000 + i)}`, flow_ns: FLOW, user_fields: { plan: 'gold' } })));
    // The bodies, not just the statuses, so a failure says what went wrong.
    expect(results.filter((r) => r.status !== 200).map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    expect(new Set(results.map((r) => r.body.request_id)).size).toBe(60);
    const platformRequests = fake.requests.slice(seenBefore);
    expect(platformRequests.filter((r) => r.answeredWith !== 200 && r.answeredWith !== 400).map((r) => `${r.method} ${r.path} ${r.answeredWith}`)).toEqual([]);
    // A new user: one id lookup (400 not found), two phone searches, create, fields, send.
    expect(platformRequests).toHaveLength(60 * 6);
  }, 60_000);

  it("keeps the bot queue's event stream short (results of finished calls linger there)", async () => {
    const { Redis } = await import('ioredis');
    const redis = (await import('./support/redis.js')).testRedis();
    try {
      expect(await redis.hget(`${prefix}:bot:meta`, 'opts.maxLenEvents')).toBe('1000');
    } finally {
      redis.disconnect();
    }
  });

  it('never stores the token: once the calls end, no key under the prefix holds it, in clear or sealed, and no job is left', async () => {
    const dump = await redisDump(prefix);
    // Values of every type were read: the results of finished calls sit in the queue's event stream.
    expect(dump.get(`${prefix}:bot:events`)).toContain('user_ns_retrieval');
    expect(tokenTraces(dump)).toEqual([]);
    // No job is left: no key is named after a call (job hash, lock, logs), and no hash is a job's.
    expect(answeredRequestIds.size).toBeGreaterThan(60);
    expect([...dump.keys()].filter((key) => [...answeredRequestIds].some((id) => key.includes(id)))).toEqual([]);
    const isJobHash = (value: string) => {
      const parsed: unknown = JSON.parse(value);
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && 'data' in parsed;
    };
    expect([...dump].filter(([, value]) => isJobHash(value)).map(([key]) => key)).toEqual([]);
  });
});

/**
 * The platform's per-token limit counts requests (contract §5: 1000 an hour). Here: 10 requests
 * per 6 s window, on the connector and on the stand-in alike. A call for a new user without
 * fields costs 5 requests (id lookup, two phone searches, create, send), which is also what the
 * connector reserves for it up front: two such calls fill a window.
 */
describe('per-token platform request quota', () => {
  const quotaPrefix = testPrefix('bot-quota');
  const WINDOW_MS = 6_000;
  const LIMIT = 10;
  let platform: FakeBotPlatform;
  let gateway: GatewayHarness;
  let hurried: GatewayHarness;
  let quotaConnector: RunningService;
  let phone = 0;
  const newUser = (gw: GatewayHarness) => call({ phone_number: `+44 7700 9${String(10_000 + phone++)}`, flow_ns: FLOW }, TOKEN, gw);
  const windowOf = (at: number) => Math.floor(at / WINDOW_MS);
  /** Waits for the next window to begin, so a test's requests do not straddle a boundary. */
  const startOfNextWindow = () => sleep(WINDOW_MS - (Date.now() % WINDOW_MS) + 100);

  beforeAll(async () => {
    platform = await startFakeBotPlatform({ tokens: [TOKEN], subFlows: [{ name: 'Welcome', sub_flow_ns: FLOW }], rateLimit: LIMIT, rateWindowSeconds: WINDOW_MS / 1000 });
    gateway = await GatewayHarness.start(quotaPrefix, { DEFAULT_RATE_LIMIT_PER_MINUTE: '1000' });
    hurried = await GatewayHarness.start(quotaPrefix, { DEFAULT_RATE_LIMIT_PER_MINUTE: '1000', BOT_CALL_TIMEOUT_MS: '3000' });
    quotaConnector = await startBotConnector(
      loadBotConnectorConfig(serviceEnv(quotaPrefix, { BOT_PLATFORM_BASE_URL: platform.baseUrl, BOT_PLATFORM_REQUESTS_PER_TOKEN: String(LIMIT), BOT_PLATFORM_REQUEST_WINDOW_SECONDS: String(WINDOW_MS / 1000) })),
      createLogger('bot-quota-test', 'error'),
    );
  });

  afterAll(async () => {
    await quotaConnector?.stop();
    await gateway?.stop();
    await hurried?.stop();
    await platform?.close();
    await deleteKeysWithPrefix(quotaPrefix);
  });

  it('refuses the old per-call setting at boot instead of ignoring it', () => {
    expect(() => loadBotConnectorConfig(serviceEnv(quotaPrefix, { BOT_CALLS_PER_MINUTE_PER_TOKEN: '120' }))).toThrow(/BOT_CALLS_PER_MINUTE_PER_TOKEN is replaced by BOT_PLATFORM_REQUESTS_PER_TOKEN/);
    expect(loadBotConnectorConfig(serviceEnv(quotaPrefix))).toMatchObject({ BOT_PLATFORM_REQUESTS_PER_TOKEN: 1000, BOT_PLATFORM_REQUEST_WINDOW_SECONDS: 3600 });
  });

  it('a call that does not fit in this window waits for the next one when that is inside its deadline', async () => {
    await startOfNextWindow();
    const seenBefore = platform.requests.length;
    const started = Date.now();
    const results = await Promise.all([newUser(gateway), newUser(gateway), newUser(gateway)]);
    expect(results.map((r) => ({ status: r.status, error: r.body.error }))).toEqual(Array.from({ length: 3 }, () => ({ status: 200, error: undefined })));
    const requests = platform.requests.slice(seenBefore);
    expect(requests).toHaveLength(15);
    // The platform never had to refuse anything, and no window got more than the limit.
    expect(requests.filter((r) => r.answeredWith === 429)).toEqual([]);
    const perWindow = new Map<number, number>();
    for (const r of requests) perWindow.set(windowOf(r.at), (perWindow.get(windowOf(r.at)) ?? 0) + 1);
    expect([...perWindow.values()].every((n) => n <= LIMIT)).toBe(true);
    // Two calls ran in the first window; the third waited for the next.
    expect(perWindow.get(windowOf(started))).toBe(LIMIT);
    expect(Math.max(...requests.map((r) => r.at))).toBeGreaterThanOrEqual((windowOf(started) + 1) * WINDOW_MS);
  }, 30_000);

  it('a call that cannot fit before its deadline is answered 429 with Retry-After, in the bot error format, and sends nothing', async () => {
    await startOfNextWindow();
    for (const res of [await newUser(gateway), await newUser(gateway)]) expect(res.status).toBe(200);
    const seenBefore = platform.requests.length;
    // The window has ~5 s left; this caller waits 3 s at most.
    const refused = await newUser(hurried);
    expect(refused.status).toBe(429);
    expect(Object.keys(refused.body).sort()).toEqual(['error', 'request_id']);
    expect(refused.body.error).toMatch(/^Too many bot platform requests for this token \(at most 10 per 6 s\); retry in \d s$/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(6);
    expect(platform.requests.length).toBe(seenBefore);
    // Retry-After is honest: once it has passed, the same call goes through.
    await sleep(retryAfter * 1000);
    expect((await newUser(hurried)).status).toBe(200);
  }, 30_000);
});

/**
 * The connector as operators run it (its own process, `LOG_LEVEL=debug`), its whole output read:
 * log lines, lifecycle lines and anything else it prints. Its own prefix, so it alone runs these calls.
 */
describe("bot-connector's output at debug level", () => {
  const logsPrefix = testPrefix('bot-logs');
  const UNKNOWN_TOKEN = 'platform-token-unknown-9876543210';
  let gateway: GatewayHarness;
  let connectorProcess: ServiceProcess;

  beforeAll(async () => {
    gateway = await GatewayHarness.start(logsPrefix, { DEFAULT_RATE_LIMIT_PER_MINUTE: '1000' });
    connectorProcess = startService('bot-connector', serviceEnv(logsPrefix, { BOT_PLATFORM_BASE_URL: fake.baseUrl, LOG_LEVEL: 'debug' }));
    await connectorProcess.waitFor(/bot-connector ready/, 90_000);
  }, 120_000);

  afterAll(async () => {
    await connectorProcess?.kill();
    await gateway?.stop();
    await deleteKeysWithPrefix(logsPrefix);
  });

  it('never carries the token: a success, platform 401s and a 206, the platform echoing the token in its messages', async () => {
    const echo = (what: string) => ({ status: 422, body: { message: `${what} for token ${TOKEN}` } });
    const answers: Array<{ res: request.Response; status: number }> = [];
    const run = async (status: number, body: Record<string, unknown>, token = TOKEN) => answers.push({ res: await call({ flow_ns: FLOW, ...body }, token, gateway), status });

    await run(200, { phone_number: '+57 300 123 4567', user_fields: { city: 'Medellín' } });
    // The platform refusing the token: one it knows, while echoing it, and one it does not know.
    fake.failNext('GET /subscriber/get-info-by-user-id', { status: 401, body: { message: `Unauthenticated: ${TOKEN}` } });
    await run(401, { phone_number: '573001234567' });
    await run(401, { phone_number: '573001234567' }, UNKNOWN_TOKEN);
    // A field and the flow failing, each with the token in the platform's message.
    fake.failNext('PUT /subscriber/set-user-field-by-name', echo('The field may not be set'));
    fake.failNext('POST /subscriber/send-sub-flow', echo('The flow may not be sent'));
    await run(206, { phone_number: '573001234567', user_fields: { city: 'Cali', unknown_field: 'x' } });

    expect(answers.map((a) => a.res.status)).toEqual(answers.map((a) => a.status));
    const last = answers.at(-1)!.res;
    expect(last.body.custom_fields_update.details[0].status).toMatch(/^failed: .*\[redacted\]/);
    expect(last.body.flow_sent.message).toMatch(/\[redacted\]/);
    for (const { res } of answers) expect(res.text).not.toContain(TOKEN);

    // The output was read: the connector logged each call, with the status it answered.
    await waitFor(() => jsonLines(connectorProcess.output()).filter((l) => l.message === 'bot call finished').length, (n) => n >= answers.length, 5_000);
    const finished = jsonLines(connectorProcess.output()).filter((l) => l.message === 'bot call finished');
    expect(new Map(finished.map((l) => [l.requestId, l.httpStatus]))).toEqual(new Map(answers.map((a) => [a.res.body.request_id, a.status])));
    const output = connectorProcess.output();
    expect(output).not.toContain(TOKEN);
    expect(output).not.toContain(UNKNOWN_TOKEN);
  }, 30_000);
});
