import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@gleaner/platform';
import { loadBotConnectorConfig, startBotConnector, type RunningService } from '@gleaner/bot-connector';
import { startFakeBotPlatform, type FakeBotPlatform } from './fakes/bot-platform.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness } from './support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/** `/bot-webhook` through the gateway, the bot queue and a real bot-connector, against a stand-in platform. */
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
  h = await GatewayHarness.start(prefix, { BOT_CALL_TIMEOUT_MS: '6000', DEFAULT_RATE_LIMIT_PER_MINUTE: '1000' });
  connector = await startBotConnector(
    loadBotConnectorConfig(serviceEnv(prefix, { BOT_PLATFORM_BASE_URL: fake.baseUrl, BOT_PLATFORM_TIMEOUT_MS: '1500', BOT_CALLS_PER_MINUTE_PER_TOKEN: '1000', BOT_CONCURRENCY: '32' })),
    createLogger('bot-test', 'error'),
  );
});

afterAll(async () => {
  await connector?.stop();
  await h?.stop();
  await fake?.close();
  await deleteKeysWithPrefix(prefix);
});

const call = (body: unknown, token = TOKEN) => request(h.url).post('/bot-webhook').set('authorization', `Bearer ${token}`).send(body as object);

describe('bot webhook', () => {
  it('existing user: 200 with every step reported and the request id in body and header', async () => {
    const res = await call({ phone_number: '+57 300 123 4567', flow_ns: FLOW, user_fields: { city: 'Bogotá' } });
    expect(res.status).toBe(200);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    expect(res.body.user_ns_retrieval).toMatchObject({ success: true });
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

  it('a platform that hangs: 500 with a clear message, never a hung request', async () => {
    fake.failNext('GET /subscriber/get-info-by-user-id', { hang: true }, 1);
    const started = Date.now();
    const res = await call({ phone_number: '573001234567', flow_ns: FLOW });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/did not answer|timed out/i);
    expect(Date.now() - started).toBeLessThan(7_000);
  });

  it('invalid bodies: 400', async () => {
    expect((await call({ flow_ns: FLOW })).status).toBe(400);
    expect((await call({ phone_number: '12', flow_ns: FLOW })).status).toBe(400);
    expect((await call({ phone_number: '573001234567', flow_ns: FLOW, user_fields: { age: 42 } })).status).toBe(400);
    expect((await call({ phone_number: '573001234567' })).body.error).toMatch(/flow_ns/);
  });

  it('answers 60 concurrent calls', async () => {
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => call({ phone_number: `+1 (555) 010-${String(1000 + i)}`, flow_ns: FLOW, user_fields: { plan: 'gold' } })));
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(new Set(results.map((r) => r.body.request_id)).size).toBe(60);
  }, 60_000);

  it('never stores the token: nothing under the prefix holds it once calls end', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis((await import('./support/redis.js')).TEST_REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:*`);
      for (const key of keys) {
        const type = await redis.type(key);
        const dump = type === 'string' ? await redis.get(key) : type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : type === 'stream' ? JSON.stringify(await redis.xrange(key, '-', '+')) : '';
        expect(dump ?? '').not.toContain(TOKEN);
      }
    } finally {
      redis.disconnect();
    }
  });
});
