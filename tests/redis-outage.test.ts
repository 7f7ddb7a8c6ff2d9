import { afterAll, beforeAll, expect, it } from '@jest/globals';
import request from 'supertest';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { DisposableRedis } from './support/redis-server.js';

let redis: DisposableRedis;
let h: GatewayHarness;
let account: TestAccount;

beforeAll(async () => {
  redis = await DisposableRedis.start();
  h = await GatewayHarness.start('outage', { REDIS_URL: redis.url, SYNC_WINDOW_MS: '200' });
  account = await h.account('outage-account');
});

afterAll(async () => {
  await h?.stop();
  await redis?.dispose();
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

it('answers 503 E006 / 500-002 with Retry-After while Redis is down, and recovers by itself', async () => {
  const before = await request(h.url).get('/account/usage').set('x-api-key', account.apiKey);
  expect(before.status).toBe(200);

  await redis.stop();
  const scrape = await request(h.url).post('/web-scrapper/').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/x' });
  expect(scrape.status).toBe(503);
  expect(scrape.body.error).toMatch(/^E006: /);
  expect(scrape.headers['retry-after']).toBeTruthy();
  const parse = await request(h.url).post('/documents/parse').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/x.pdf' });
  expect(parse.status).toBe(500);
  expect(parse.body.error).toMatch(/^500-002: /);
  expect(parse.headers['retry-after']).toBeTruthy();
  const status = await request(h.url).get('/web-scrapper/01900000-0000-7000-8000-000000000000').set('x-api-key', account.apiKey);
  expect(status.status).toBe(503);
  // v1, bot and account answer in their own formats, each with Retry-After.
  const v1 = await request(h.url).post('/v1/llm-web-scrapper').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/x', use_llm: false });
  expect(v1.status).toBe(503);
  expect(v1.body).toEqual({ error: expect.stringMatching(/\S/), status_code: 503 });
  expect(v1.headers['retry-after']).toBeTruthy();
  const bot = await request(h.url).post('/bot-webhook').set('authorization', 'Bearer outage-token').send({ phone_number: '+57 300 123 4567', flow_ns: 'f1' });
  expect(bot.status).toBe(503);
  expect(bot.body).toMatchObject({ error: expect.stringMatching(/\S/), request_id: expect.any(String) });
  expect(bot.headers['retry-after']).toBeTruthy();
  const usage = await request(h.url).get('/account/usage').set('x-api-key', account.apiKey);
  expect(usage.status).toBe(503);
  expect(usage.body.error).toMatch(/^E006: /);
  expect(usage.headers['retry-after']).toBeTruthy();
  const ready = await request(h.url).get('/readyz');
  expect(ready.status).toBe(503);

  await redis.resume();
  const recovered = await waitUntil(async () => (await request(h.url).get('/account/usage').set('x-api-key', account.apiKey)).status === 200, 15_000);
  expect(recovered).toBe(true);
  // Queues recover too: a submit is accepted again (no worker runs here, so it answers 202).
  const again = await request(h.url).post('/web-scrapper/').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/x' });
  expect(again.status).toBe(202);
});
