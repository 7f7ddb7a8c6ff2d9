import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { verifyWebhookSignature } from '@gleaner/safe-fetch';
import { loadWebhookDispatcherConfig, startWebhookDispatcher, webhookBackoffDelay, type RunningService } from '@gleaner/webhook-dispatcher';
import { createLogger, webhookDeliveries } from '@gleaner/platform';
import { loadParserWorkerConfig, startParserWorker } from '@gleaner/parser-worker';
import { QueueProducer, webhookDeliveryId, webhookQueue } from '@gleaner/queues';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { binaryNoise } from './support/hostile-files.js';
import { startPageServer } from './support/page-server.js';
import { startService } from './support/processes.js';
import { rawHttp } from './support/raw-http.js';
import { deleteKeysWithPrefix, testConnection, testPrefix } from './support/redis.js';
import { startScriptedWorkers } from './support/scripted-processors.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

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

type Outcome = 'delivered' | 'retry' | 'rejected' | 'failed';
/** `gleaner_webhook_deliveries_total` of one family, read from this process's registry (the dispatcher runs here). */
async function deliveryCounts(family: string): Promise<Record<Outcome, number>> {
  const counts: Record<Outcome, number> = { delivered: 0, retry: 0, rejected: 0, failed: 0 };
  for (const v of (await webhookDeliveries.get()).values) if (v.labels.family === family) counts[v.labels.outcome as Outcome] += v.value;
  return counts;
}
function countsSince(before: Record<Outcome, number>, after: Record<Outcome, number>): Record<Outcome, number> {
  return { delivered: after.delivered - before.delivered, retry: after.retry - before.retry, rejected: after.rejected - before.rejected, failed: after.failed - before.failed };
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
    const before = await deliveryCounts('scrape');
    try {
      await submitScrape(receiver.url);
      const got = await waitFor(() => receiver.deliveries, (d) => d.length >= 2);
      expect(got.map((d) => d.answeredWith)).toEqual(['hang', 200]);
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(700);
      // Counted just after the receiver answered: settled here, so the next test's counts are its own.
      const counted = await waitFor(async () => countsSince(before, await deliveryCounts('scrape')), (c) => c.delivered >= 1, 5_000);
      expect(counted).toEqual({ delivered: 1, retry: 1, rejected: 0, failed: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('stops at once on 410, records the outcome and counts it once, as rejected', async () => {
    const receiver = await startWebhookReceiver([410]);
    const before = await deliveryCounts('scrape');
    try {
      const id = await submitScrape(receiver.url);
      await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      await new Promise((r) => setTimeout(r, 800));
      expect(receiver.deliveries).toHaveLength(1);
      const record = await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'failed');
      expect(record?.webhook).toMatchObject({ status: 'failed', attempts: 1, lastError: 'receiver answered HTTP 410' });
      const status = await request(h.url).get(`/web-scrapper/${id}`).set('x-api-key', account.apiKey);
      expect(status.body.webhook_delivery).toEqual({ status: 'failed', attempts: 1, error: 'receiver answered HTTP 410' });
      // The counter moves just after the record is written: wait for it rather than read once.
      const counted = await waitFor(async () => countsSince(before, await deliveryCounts('scrape')), (c) => c.rejected >= 1, 5_000);
      expect(counted).toEqual({ delivered: 0, retry: 0, rejected: 1, failed: 0 });
    } finally {
      await receiver.close();
    }
  });

  it('does not send a delivery the record says has arrived, when its job runs again', async () => {
    const receiver = await startWebhookReceiver([200, 200]);
    const producer = new QueueProducer(webhookQueue, testConnection(prefix));
    try {
      const id = await submitScrape(receiver.url);
      await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'delivered');
      expect((await request(h.url).get(`/web-scrapper/${id}`).set('x-api-key', account.apiKey)).body.webhook_delivery).toEqual({ status: 'delivered', attempts: 1 });
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

  it('marks an exhausted parser delivery with 500-003 on the status record, counting 7 retries and one failure', async () => {
    const receiver = await startWebhookReceiver([500]);
    const before = await deliveryCounts('parse');
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
      const attempts = webhookQueue.jobOptions.attempts!;
      const counted = await waitFor(async () => countsSince(before, await deliveryCounts('parse')), (c) => c.failed >= 1, 5_000);
      expect(counted).toEqual({ delivered: 0, retry: attempts - 1, rejected: 0, failed: 1 });
    } finally {
      await receiver.close();
    }
  }, 70_000);

  it('refuses a plain-http or private webhook at submit, saying why, in each family\'s format', async () => {
    const strict = await GatewayHarness.start(prefix, { GLEANER_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      const key = (await strict.account('strict')).apiKey;
      const send = (path: string, body: Record<string, unknown>) => request(strict.url).post(path).set('x-api-key', key).send(body);
      const target = 'https://93.184.216.34/';
      const cases = [
        { hook: 'http://93.184.216.34/hook', why: 'must use https' },
        { hook: 'https://127.0.0.1/hook', why: 'resolves to a private or reserved address, which this deployment does not allow' },
        { hook: 'https://[::ffff:10.0.0.1]/hook', why: 'resolves to a private or reserved address, which this deployment does not allow' },
        { hook: 'not a url', why: 'must be an absolute https URL' },
      ];
      for (const { hook, why } of cases) {
        const scrape = await send('/web-scrapper/', { url: target, webhook: hook });
        expect({ hook, status: scrape.status, body: scrape.body }).toEqual({ hook, status: 400, body: { error: `E009: webhook ${why}` } });
        const v1 = await send('/v1/llm-web-scrapper', { url: target, use_llm: false, webhook: hook });
        expect({ hook, status: v1.status, body: v1.body }).toEqual({ hook, status: 400, body: { error: `webhook ${why}`, status_code: 400 } });
        const parse = await send('/documents/parse', { url: `${target}a.pdf`, webhook: hook });
        expect({ hook, status: parse.status, body: parse.body }).toEqual({ hook, status: 400, body: { error: '400-003: Invalid webhook URL', details: [`'webhook' ${why}`] } });
        const subscription = await send('/account/webhooks', { url: hook });
        expect({ hook, status: subscription.status, body: subscription.body }).toEqual({ hook, status: 400, body: { error: `E009: url ${why}` } });
      }
    } finally {
      await strict.stop();
    }
  });

  it('waits as long as a 429 answer\'s Retry-After asks before trying again', async () => {
    const receiver = await startWebhookReceiver([{ status: 429, headers: { 'retry-after': '2' } }, 200]);
    try {
      const id = await submitScrape(receiver.url);
      const got = await waitFor(() => receiver.deliveries, (d) => d.length >= 2, 30_000);
      expect(got.map((d) => d.answeredWith)).toEqual([429, 200]);
      // The configured backoff is 100 ms: only the receiver's Retry-After explains the gap.
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(2_000);
      const record = await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'delivered');
      expect(record?.webhook).toMatchObject({ status: 'delivered', attempts: 2 });
    } finally {
      await receiver.close();
    }
  });

  it('sends the v1 status body for a v1 request', async () => {
    const receiver = await startWebhookReceiver([200]);
    try {
      const res = await request(h.url).post('/v1/llm-web-scrapper').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1', use_llm: false, webhook: receiver.url });
      expect(res.status).toBe(200);
      const id = res.body.request_id as string;
      const [delivery] = await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      expect(delivery.headers['user-agent']).toBe('Web-Scraper-Webhook/1.0');
      expect(delivery.headers['x-request-id']).toBe(id);
      const status = await request(h.url).get(`/v1/llm-web-scrapper/${id}`).set('x-api-key', account.apiKey);
      expect(status.status).toBe(200);
      expect(JSON.parse(delivery.rawBody)).toEqual(status.body);
      expect(status.body).toEqual({ request_id: id, status: 'completed', scraped_content: { html: '<p>scripted</p>', text: 'scripted' } });
    } finally {
      await receiver.close();
    }
  });

  it('delivers the webhook of a scrape whose submit answered 202', async () => {
    const shortWindow = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '100' });
    const receiver = await startWebhookReceiver([200]);
    try {
      const res = await request(shortWindow.url).post('/web-scrapper/').set('x-api-key', account.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1500', webhook: receiver.url });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ status: 'processing' });
      const id = res.body.request_id as string;
      const [delivery] = await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      expect(JSON.parse(delivery.rawBody)).toMatchObject({ request_id: id, status: 'completed', url: 'http://127.0.0.1:9/sleep/1500', content: { text: 'scripted text for http://127.0.0.1:9/sleep/1500' } });
    } finally {
      await receiver.close();
      await shortWindow.stop();
    }
  });
});

describe('deliveries of parses that failed, from the real parser worker', () => {
  // A prefix of their own: on the main one, the scripted workers consume the parse queue.
  const parserPrefix = testPrefix('webhooks-parser');
  let gateway: GatewayHarness;
  let parser: { stop(): Promise<void> };
  let parserDispatcher: RunningService;
  let docs: Awaited<ReturnType<typeof startPageServer>>;
  let owner: TestAccount;

  beforeAll(async () => {
    // Anything not routed here answers 404.
    docs = await startPageServer({ '/binary.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(binaryNoise()) });
    gateway = await GatewayHarness.start(parserPrefix);
    parser = await startParserWorker(loadParserWorkerConfig(serviceEnv(parserPrefix, { PARSER_CONCURRENCY: '1', PARSER_OCR_WORKERS: '1' })), createLogger('parser-test', 'error'));
    parserDispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(serviceEnv(parserPrefix, { WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '700' })), createLogger('dispatcher-test', 'error'));
    owner = await gateway.account('parser-hooked');
  }, 60_000);

  afterAll(async () => {
    await parserDispatcher?.stop();
    await parser?.stop();
    await gateway?.stop();
    await docs?.close();
    await deleteKeysWithPrefix(parserPrefix);
  });

  it.each([
    ['a file that is not what it says (binary sent as txt)', '/binary.txt', 'txt', /^400-001: /],
    ['a URL that answers 404', '/missing.pdf', 'pdf', /^500-001: /],
  ])('%s: the FAILED status record, as the parser, signed', async (_name, docPath, type, code) => {
    const receiver = await startWebhookReceiver([200]);
    try {
      const res = await request(gateway.url).post('/documents/parse').set('x-api-key', owner.apiKey).send({ url: `${docs.url}${docPath}`, type, webhook: receiver.url });
      expect([400, 500]).toContain(res.status);
      const id = res.body.requestId as string;
      expect(res.body.error).toMatch(code);
      const [delivery] = await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      const body = JSON.parse(delivery.rawBody);
      expect(body).toMatchObject({ requestId: id, status: 'FAILED', error: expect.stringMatching(code) });
      expect(body.error).toBe(res.body.error);
      expect(body).not.toHaveProperty('data');
      // The very record the status endpoint answers.
      const status = await request(gateway.url).get(`/documents/status/${id}`).set('x-api-key', owner.apiKey);
      expect(body).toEqual(status.body);
      expect(delivery.headers).toMatchObject({ 'user-agent': 'Document-Parser-Webhook/1.0', 'content-type': 'application/json', 'x-request-id': id, 'x-webhook-delivery': webhookDeliveryId(id), 'x-webhook-attempt': '1' });
      const { secret } = (await request(gateway.url).get('/account/webhook-secret').set('x-api-key', owner.apiKey)).body;
      expect(verifyWebhookSignature(secret, delivery.rawBody, delivery.headers['x-webhook-signature'] as string)).toBe(true);
      expect(verifyWebhookSignature(secret, delivery.rawBody.replace('FAILED', 'COMPLETED'), delivery.headers['x-webhook-signature'] as string)).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 30_000);
});

describe('account subscriptions and the webhook secret', () => {
  it('a subscription delivery that runs again after it arrived is not sent twice', async () => {
    const subscriber = await h.account('subscriber');
    const receiver = await startWebhookReceiver([200]);
    const producer = new QueueProducer(webhookQueue, testConnection(prefix));
    try {
      const sub = await request(h.url).post('/account/webhooks').set('x-api-key', subscriber.apiKey).send({ url: receiver.url, families: ['scrape'] });
      expect(sub.status).toBe(201);
      const res = await request(h.url).post('/web-scrapper/').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
      const id = res.body.request_id as string;
      const record = await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.subscriptionDeliveries?.[sub.body.id]?.status === 'delivered');
      expect(record?.subscriptionDeliveries?.[sub.body.id]).toMatchObject({ url: receiver.url, status: 'delivered', attempts: 1 });
      expect(receiver.deliveries).toHaveLength(1);
      expect(receiver.deliveries[0].headers['x-webhook-delivery']).toBe(webhookDeliveryId(id, sub.body.id));
      // A late re-run of the same delivery (its first job already removed, or a lost lock).
      const deliveryId = webhookDeliveryId(id, sub.body.id);
      const rerun = await producer.add({ deliveryId, requestId: id, accountId: subscriber.accountId, family: 'scrape', url: receiver.url, subscriptionId: sub.body.id }, `${deliveryId}-rerun`);
      expect(await waitFor(() => rerun.getState(), (state) => state === 'completed' || state === 'failed')).toBe('completed');
      expect(receiver.deliveries).toHaveLength(1);
    } finally {
      await producer.close();
      await receiver.close();
    }
  });

  it('a subscription whose URL answers 404 to 3 deliveries in a row is removed; an answer in between restarts the count', async () => {
    const subscriber = await h.account('gone-subscriber');
    // 404, 200 (the count restarts), then 404 three times: the third removes it.
    const receiver = await startWebhookReceiver([404, 200, 404, 404, 404, 200]);
    try {
      const sub = await request(h.url).post('/account/webhooks').set('x-api-key', subscriber.apiKey).send({ url: receiver.url, families: ['scrape'] });
      const list = () => request(h.url).get('/account/webhooks').set('x-api-key', subscriber.apiKey).then((r) => (r.body.webhooks as Array<{ id: string }>).map((w) => w.id));
      for (let n = 1; n <= 4; n++) {
        await request(h.url).post('/web-scrapper/').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
        await waitFor(() => receiver.deliveries.length, (count) => count === n);
      }
      expect(await list()).toEqual([sub.body.id]);
      await request(h.url).post('/web-scrapper/').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
      await waitFor(() => receiver.deliveries.length, (count) => count === 5);
      expect(await waitFor(list, (ids) => ids.length === 0)).toEqual([]);
      // Nothing more is sent to it.
      await request(h.url).post('/web-scrapper/').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.deliveries.map((d) => d.answeredWith)).toEqual([404, 200, 404, 404, 404]);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('a subscription for the parser family receives parse completions and no scrape completion', async () => {
    const subscriber = await h.account('parse-only-subscriber');
    const parseOnly = await startWebhookReceiver([200]);
    const everything = await startWebhookReceiver([200]);
    const subscribe = (url: string, families?: string[]) => request(h.url).post('/account/webhooks').set('x-api-key', subscriber.apiKey).send({ url, ...(families ? { families } : {}) });
    try {
      const parseSub = await subscribe(parseOnly.url, ['parse']);
      expect(parseSub.status).toBe(201);
      expect(parseSub.body.families).toEqual(['parse']);
      const allSub = await subscribe(everything.url);
      expect(allSub.status).toBe(201);
      expect(allSub.body.families).toEqual(['scrape', 'scrape-v1', 'parse']);

      const scrape = await request(h.url).post('/web-scrapper/').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
      const scrapeId = scrape.body.request_id as string;
      // The barrier: the catch-all subscription's copy of the scrape completion has arrived, so
      // the scrape's delivery targets were chosen and their jobs have run (or never existed).
      const [scrapeCopy] = await waitFor(() => everything.deliveries, (d) => d.length >= 1);
      expect(scrapeCopy.headers).toMatchObject({ 'user-agent': 'Web-Scraper-Webhook/1.0', 'x-request-id': scrapeId, 'x-webhook-delivery': webhookDeliveryId(scrapeId, allSub.body.id) });
      await waitFor(() => h.stores.records.get('scrape', scrapeId), (r) => r?.subscriptionDeliveries?.[allSub.body.id]?.status === 'delivered');
      await new Promise((r) => setTimeout(r, 500)); // a copy for the parser subscription would arrive alongside
      expect(parseOnly.deliveries).toHaveLength(0);
      expect((await h.stores.records.get('scrape', scrapeId))?.subscriptionDeliveries).toEqual({ [allSub.body.id]: expect.objectContaining({ status: 'delivered' }) });

      const parsed = await request(h.url).post('/documents/parse').set('x-api-key', subscriber.apiKey).send({ url: 'http://127.0.0.1:9/sleep/1' });
      expect(parsed.status).toBe(200);
      const parseId = parsed.body.requestId as string;
      const [parseCopy] = await waitFor(() => parseOnly.deliveries, (d) => d.length >= 1);
      expect(parseCopy.headers).toMatchObject({ 'user-agent': 'Document-Parser-Webhook/1.0', 'x-request-id': parseId, 'x-webhook-delivery': webhookDeliveryId(parseId, parseSub.body.id) });
      expect(JSON.parse(parseCopy.rawBody)).toMatchObject({ requestId: parseId, status: 'COMPLETED', data: 'scripted document' });
      await waitFor(() => everything.deliveries, (d) => d.length >= 2);
      expect(everything.deliveries.map((d) => d.headers['x-request-id'])).toEqual([scrapeId, parseId]);
      expect(parseOnly.deliveries.map((d) => d.headers['x-request-id'])).toEqual([parseId]);
    } finally {
      await parseOnly.close();
      await everything.close();
    }
  });

  it('rotates the webhook secret with no body at all, and signs later deliveries with the new one', async () => {
    const port = Number(new URL(h.url).port);
    const before = (await request(h.url).get('/account/webhook-secret').set('x-api-key', account.apiKey)).body.secret as string;
    // What `curl -X POST` sends: no body, no Content-Length.
    const rotated = await rawHttp(port, { method: 'POST', path: '/account/webhook-secret/rotate', headers: [['x-api-key', account.apiKey]] });
    expect(rotated.status).toBe(200);
    const secret = (rotated.json as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(before);
    expect((await request(h.url).get('/account/webhook-secret').set('x-api-key', account.apiKey)).body.secret).toBe(secret);
    // An empty body and an empty object work too; a body that is not an object does not.
    const empty = await rawHttp(port, { method: 'POST', path: '/account/webhook-secret/rotate', headers: [['x-api-key', account.apiKey], ['content-type', 'application/json']], body: '' });
    expect(empty.status).toBe(200);
    expect((await request(h.url).post('/account/webhook-secret/rotate').set('x-api-key', account.apiKey).send({})).status).toBe(200);
    const notObject = await request(h.url).post('/account/webhook-secret/rotate').set('x-api-key', account.apiKey).set('content-type', 'application/json').send('[1]');
    expect({ status: notObject.status, body: notObject.body }).toEqual({ status: 400, body: { error: 'E001: Request body must be a JSON object' } });

    const current = (await request(h.url).get('/account/webhook-secret').set('x-api-key', account.apiKey)).body.secret as string;
    const receiver = await startWebhookReceiver([200]);
    try {
      await submitScrape(receiver.url);
      const [delivery] = await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      expect(verifyWebhookSignature(current, delivery.rawBody, delivery.headers['x-webhook-signature'] as string)).toBe(true);
      expect(verifyWebhookSignature(before, delivery.rawBody, delivery.headers['x-webhook-signature'] as string)).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});

describe('schedule and durability', () => {
  it('the production schedule makes at least 5 attempts over at least 30 minutes, whatever the jitter', () => {
    // What production runs: the queue contract's attempts, the dispatcher's default base delay
    // and its backoff function, which BullMQ calls after each failed attempt but the last.
    const attempts = webhookQueue.jobOptions.attempts!;
    const base = loadWebhookDispatcherConfig({ GLEANER_SECRET: 'x'.repeat(32) }).WEBHOOK_BACKOFF_BASE_MS;
    expect(webhookQueue.jobOptions.backoff).toEqual({ type: 'webhook' });
    expect(attempts).toBeGreaterThanOrEqual(5);
    const span = (jitter: () => number) => Array.from({ length: attempts - 1 }, (_, i) => webhookBackoffDelay(i + 1, base, undefined, jitter)).reduce((a, b) => a + b, 0);
    const shortest = span(() => 0);
    const longest = span(() => 1);
    expect(shortest).toBeGreaterThanOrEqual(30 * 60_000);
    expect(longest).toBeGreaterThan(shortest); // the jitter is real
    reportFigures(`webhook schedule: ${attempts} attempts over ${(shortest / 60_000).toFixed(1)}-${(longest / 60_000).toFixed(1)} min\n`);
  });

  it('a dispatcher killed mid-delivery delivers after a new one starts', async () => {
    await dispatcher.stop();
    const processEnv = { ...dispatcherEnv, WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000', WEBHOOK_TIMEOUT_MS: '30000' };
    const first = startService('webhook-dispatcher', processEnv);
    await first.waitFor(/ready/);
    const receiver = await startWebhookReceiver(['hang', 200]);
    try {
      const id = await submitScrape(receiver.url);
      await waitFor(() => receiver.deliveries, (d) => d.length >= 1);
      await first.kill('SIGKILL');
      const second = startService('webhook-dispatcher', processEnv);
      try {
        await second.waitFor(/ready/);
        const got = await waitFor(() => receiver.deliveries, (d) => d.some((x) => x.answeredWith === 200), 30_000);
        expect(got.filter((d) => d.answeredWith === 200)).toHaveLength(1);
        // The same delivery id across the crash, and attempt numbers that do not repeat: BullMQ
        // re-runs a stalled job without counting a failed attempt, but it counts every start.
        expect(got.map((d) => d.headers['x-webhook-delivery'])).toEqual([webhookDeliveryId(id), webhookDeliveryId(id)]);
        expect(got.map((d) => d.headers['x-webhook-attempt'])).toEqual(['1', '2']);
        const record = await waitFor(() => h.stores.records.get('scrape', id), (r) => r?.webhook?.status === 'delivered');
        expect(record?.webhook).toMatchObject({ status: 'delivered', attempts: 2 });
      } finally {
        await second.kill();
      }
    } finally {
      await receiver.close();
      dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(dispatcherEnv), createLogger('dispatcher-test', 'error'));
    }
  }, 60_000);
});
