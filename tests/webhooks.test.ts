import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { verifyWebhookSignature } from '@gleaner/safe-fetch';
import { loadWebhookDispatcherConfig, startWebhookDispatcher, webhookBackoffDelay, type RunningService } from '@gleaner/webhook-dispatcher';
import { createLogger } from '@gleaner/platform';
import { QueueProducer, webhookQueue } from '@gleaner/queues';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { startService } from './support/processes.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, testPrefix } from './support/redis.js';
import { startScriptedWorkers } from './support/scripted-processors.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';

/** Tests shorten the backoff through configuration; the production schedule is checked below. */
const prefix = testPrefix('webhooks');
const dispatcherEnv = serviceEnv(prefix, { WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '700' });
let h: GatewayHarness;
let workers: { close(): Promise<void> };
let dispatcher: RunningService;
let account: TestAccount;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '3000' });
  workers = await startScriptedWorkers(prefix);
  dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(dispatcherEnv), createLogger('dispatcher-test', 'error'));
  account = await h.account('hooked');
  // Status polls below run every 100 ms; the default 60/min limit would answer them 429.
  await h.stores.accounts.setRateLimit(account.accountId, 10_000);
});

afterAll(async () => {
  await dispatcher?.stop();
  await workers?.close();
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

async function submitScrape(webhook: string, path = 'sleep/1'): Promise<string> {
  const res = await request(h.url).post('/web-scrapper/').set('x-api-key', account.apiKey).send({ url: `http://127.0.0.1:9/${path}`, webhook });
  expect([200, 202, 500]).toContain(res.status);
  return res.body.request_id as string;
}

describe('delivery', () => {
  it('retries a receiver that fails twice, then delivers exactly once with a stable delivery id and a valid signature', async () => {
    const receiver = await startWebhookReceiver([500, 503, 200]);
    try {
      const id = await submitScrape(receiver.url);
      const got = await waitFor(() => receiver.deliveries, (d) => d.some((x) => x.answeredWith === 200));
      await new Promise((r) => setTimeout(r, 500)); // nothing further may arrive
      expect(got.map((d) => d.answeredWith)).toEqual([500, 503, 200]);
      expect(new Set(got.map((d) => d.headers['x-webhook-delivery'])).size).toBe(1);
      expect(got.map((d) => d.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
      const last = got[2];
      expect(last.headers['user-agent']).toBe('Web-Scraper-Webhook/1.0');
      expect(last.headers['content-type']).toBe('application/json');
      expect(last.headers['x-request-id']).toBe(id);
      const body = JSON.parse(last.rawBody);
      expect(body).toMatchObject({ request_id: id, status: 'completed', url: 'http://127.0.0.1:9/sleep/1' });
      expect(body.content.text).toContain('scripted text');
      const { secret } = (await request(h.url).get('/account/webhook-secret').set('x-api-key', account.apiKey)).body;
      expect(verifyWebhookSignature(secret, last.rawBody, last.headers['x-webhook-signature'] as string)).toBe(true);
      expect(verifyWebhookSignature(secret, last.rawBody.replace('completed', 'failed'), last.headers['x-webhook-signature'] as string)).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it('cuts a receiver that hangs at the timeout and retries it', async () => {
    const receiver = await startWebhookReceiver(['hang', 200]);
    try {
      await submitScrape(receiver.url);
      const got = await waitFor(() => receiver.deliveries, (d) => d.length >= 2);
      expect(got.map((d) => d.answeredWith)).toEqual(['hang', 200]);
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(700);
    } finally {
      await receiver.close();
    }
  });

  it('stops at once on 410 and records the outcome', async () => {
    const receiver = await startWebhookReceiver([410]);
    try {
      const id = await submitScrape(receiver.url);
      await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      await new Promise((r) => setTimeout(r, 800));
      expect(receiver.deliveries).toHaveLength(1);
      const record = await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'failed');
      expect(record?.webhook).toMatchObject({ status: 'failed', attempts: 1, lastError: 'receiver answered HTTP 410' });
    } finally {
      await receiver.close();
    }
  });

  it('does not send a delivery the record says has arrived, when its job runs again', async () => {
    const receiver = await startWebhookReceiver([200, 200]);
    const producer = new QueueProducer(webhookQueue, { redisUrl: TEST_REDIS_URL, prefix });
    try {
      const id = await submitScrape(receiver.url);
      await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'delivered');
      // What a delivery re-run after a lost job lock looks like to the dispatcher.
      const rerun = await producer.add({ deliveryId: `wh-${id}`, requestId: id, accountId: account.accountId, family: 'scrape', url: receiver.url }, `wh-${id}-rerun`);
      await waitFor(() => rerun.getState(), (state) => state === 'completed');
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      await producer.close();
      await receiver.close();
    }
  });

  it('delivers failed requests too', async () => {
    const receiver = await startWebhookReceiver([200]);
    try {
      const id = await submitScrape(receiver.url, 'fail');
      const [delivery] = await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      expect(JSON.parse(delivery.rawBody)).toMatchObject({ request_id: id, status: 'failed', error: 'E008: scripted failure' });
    } finally {
      await receiver.close();
    }
  });

  it('marks an exhausted parser delivery with 500-003 on the status record', async () => {
    const receiver = await startWebhookReceiver([500]);
    try {
      const res = await request(h.url).post('/documents/parse').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1', webhook: receiver.url });
      const id = res.body.requestId as string;
      const status = await waitFor(
        async () => (await request(h.url).get(`/documents/status/${id}`).set('x-api-key', account.apiKey)).body,
        (b) => b.webhookError !== undefined,
        60_000,
      );
      expect(status.webhookError).toBe('500-003: Webhook delivery failed');
      expect(receiver.deliveries.length).toBe(8);
      expect(receiver.deliveries[0].headers['user-agent']).toBe('Document-Parser-Webhook/1.0');
      expect(JSON.parse(receiver.deliveries[0].rawBody)).toMatchObject({ requestId: id, status: 'COMPLETED', data: 'scripted document' });
    } finally {
      await receiver.close();
    }
  }, 70_000);

  it('refuses a plain-http or private webhook at submit when private networks are not allowed', async () => {
    const strict = await GatewayHarness.start(prefix, { GLEANER_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      const key = (await strict.account('strict')).apiKey;
      const scrape = await request(strict.url).post('/web-scrapper/').set('x-api-key', key).send({ url: 'https://93.184.216.34/', webhook: 'http://93.184.216.34/hook' });
      expect(scrape.status).toBe(400);
      expect(scrape.body.error).toMatch(/^E009: /);
      const parse = await request(strict.url).post('/documents/parse').set('x-api-key', key).send({ url: 'https://93.184.216.34/a.pdf', webhook: 'https://127.0.0.1/hook' });
      expect(parse.status).toBe(400);
      expect(parse.body.error).toMatch(/^400-003: /);
    } finally {
      await strict.stop();
    }
  });
});

describe('schedule and durability', () => {
  it('the production schedule makes at least 5 attempts over at least 30 minutes, with jitter', () => {
    const base = loadWebhookDispatcherConfig({ GLEANER_SECRET: 'x'.repeat(32) }).WEBHOOK_BACKOFF_BASE_MS;
    expect(base).toBe(30_000);
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => webhookBackoffDelay(n, base, undefined, () => 0));
    expect(delays.length + 1).toBeGreaterThanOrEqual(5);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(30 * 60_000);
    expect(webhookBackoffDelay(1, base, undefined, () => 1)).not.toBe(webhookBackoffDelay(1, base, undefined, () => 0));
  });

  it('a dispatcher killed mid-delivery delivers after a new one starts', async () => {
    await dispatcher.stop();
    const processEnv = { ...dispatcherEnv, WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000', WEBHOOK_TIMEOUT_MS: '30000' };
    const first = startService('webhook-dispatcher', processEnv);
    await first.waitFor(/ready/);
    const receiver = await startWebhookReceiver(['hang', 200]);
    try {
      await submitScrape(receiver.url);
      await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      await first.kill('SIGKILL');
      const second = startService('webhook-dispatcher', processEnv);
      try {
        await second.waitFor(/ready/);
        const got = await waitFor(() => receiver.deliveries, (d) => d.some((x) => x.answeredWith === 200), 30_000);
        expect(got.filter((d) => d.answeredWith === 200)).toHaveLength(1);
        expect(new Set(got.map((d) => d.headers['x-webhook-delivery'])).size).toBe(1);
      } finally {
        await second.kill();
      }
    } finally {
      await receiver.close();
      dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(dispatcherEnv), createLogger('dispatcher-test', 'error'));
    }
  }, 60_000);
});
