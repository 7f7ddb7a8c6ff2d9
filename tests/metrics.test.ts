import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createStores } from '@gleaner/store';
import { startFakeBotPlatform, type FakeBotPlatform } from './fakes/bot-platform.js';
import { serviceEnv, withRedisServer } from './support/env.js';
import { html, startPageServer } from './support/page-server.js';
import { jsonLines, REPO_ROOT, settledWithin, startService, type ServiceProcess } from './support/processes.js';
import { parsePrometheusText, samplesOf, sumOf, type PromSample } from './support/prometheus.js';
import { DisposableRedis, freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix, testRedis } from './support/redis.js';
import { GatewayHarness } from './support/gateway.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';

/**
 * `/metrics`, `/healthz` and `/readyz` of every service started as operators start it (one process
 * each, workers with HEALTH_PORT), after real work went through them: a scrape with a webhook, a
 * failing scrape, a text and an OCR parse, a bot call. Metric names and labels are operator
 * surface (dashboards, alerts): these assertions pin them.
 */
const prefix = testPrefix('metrics');
// LOG_LEVEL info: the log tests read the services' real output.
const env = serviceEnv(prefix, { WEBHOOK_BACKOFF_BASE_MS: '200', SYNC_WINDOW_MS: '15000', PARSER_CONCURRENCY: '1', SCRAPER_EXTRACT_THREADS: '1', LOG_LEVEL: 'info' });
const DOCS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
const BOT_TOKEN = 'platform-token-metrics-0123456789';
const BOT_FLOW = 'f190385s3400927';
const WORKERS = ['scraper-worker', 'parser-worker', 'webhook-dispatcher', 'bot-connector'] as const;
type WorkerName = (typeof WORKERS)[number];

let pages: Awaited<ReturnType<typeof startPageServer>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let bot: FakeBotPlatform;
let outageRedis: DisposableRedis;
let gateway: ServiceProcess;
let gatewayUrl: string;
const workers = {} as Record<WorkerName, { process: ServiceProcess; url: string }>;
/** A second webhook-dispatcher on a private Redis that the outage test stops (never the shared one). */
let outageWorker: { process: ServiceProcess; url: string };
let apiKey: string;
let scrapeRequestId: string;
/** `/held.txt` answers only once the test releases it: a job that is running when its worker is told to stop. */
let releaseHeldPage: () => void = () => undefined;
const heldPageReleased = new Promise<void>((resolve) => (releaseHeldPage = resolve));

beforeAll(async () => {
  pages = await startPageServer({
    '/article': html('<article><h1>Lighthouse keepers</h1><p>The last lighthouse keeper of the island retired in spring, and the lamp now runs on its own.</p><p>Visitors still climb the stairs on Sundays.</p></article>', '<title>Lighthouse keepers</title>'),
    '/note.txt': (_req, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Minutes of the harbour committee.\nThe new pier opens in May.\n'),
    '/scan.jpg': (_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(fs.readFileSync(path.join(DOCS, 'image/simple-90.jpg'))),
    '/held.txt': async (_req, res) => {
      await heldPageReleased;
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('This document arrived only after its worker had been told to stop.\n');
    },
  });
  receiver = await startWebhookReceiver([200]);
  bot = await startFakeBotPlatform({ tokens: [BOT_TOKEN], userFields: [{ name: 'city' }], subFlows: [{ name: 'Welcome', sub_flow_ns: BOT_FLOW }], subscribers: [{ phone: '+573001234567', user_id: '573001234567', name: 'Ana' }] });
  outageRedis = await DisposableRedis.start();

  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  gateway = startService('gateway', { ...env, PORT: String(gatewayPort) });
  for (const name of WORKERS) {
    const port = await freePort();
    const extra: Record<string, string> = name === 'bot-connector' ? { BOT_PLATFORM_BASE_URL: bot.baseUrl } : {};
    workers[name] = { process: startService(name, { ...env, ...extra, HEALTH_PORT: String(port) }), url: `http://127.0.0.1:${port}` };
  }
  const outagePort = await freePort();
  outageWorker = { process: startService('webhook-dispatcher', { ...withRedisServer(env, outageRedis.url), HEALTH_PORT: String(outagePort) }), url: `http://127.0.0.1:${outagePort}` };

  const redis = testRedis();
  try {
    const stores = createStores(redis, prefix, env.GLEANER_SECRET);
    const account = await stores.accounts.createAccount('metrics-account');
    await stores.accounts.setRateLimit(account.id, 10_000);
    apiKey = (await stores.accounts.createApiKey(account.id)).apiKey;
  } finally {
    redis.disconnect();
  }
  await gateway.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/, 90_000);
  await Promise.all([...Object.values(workers), outageWorker].map((w) => w.process.waitFor(/ready/, 90_000)));

  // The work the metrics below must show.
  const scrape = await submit('/web-scrapper/', { url: `${pages.url}/article`, webhook: receiver.url }, (id) => `/web-scrapper/${id}`);
  expect(scrape.status).toBe('completed');
  scrapeRequestId = scrape.request_id as string;
  const failed = await submit('/web-scrapper/', { url: `${pages.url}/missing-page` }, (id) => `/web-scrapper/${id}`);
  expect(failed.status).toBe('failed');
  for (const doc of [{ url: `${pages.url}/note.txt`, type: 'txt' }, { url: `${pages.url}/scan.jpg`, type: 'jpg' }]) {
    const parsed = await submit('/documents/parse', doc, (id) => `/documents/status/${id}`);
    expect(parsed.status).toBe('COMPLETED');
  }
  const botCall = await fetch(`${gatewayUrl}/bot-webhook`, { method: 'POST', headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ phone_number: '+573001234567', flow_ns: BOT_FLOW }) });
  expect(botCall.status).toBe(200);
  await waitFor(() => receiver.deliveries.length, (n) => n >= 1, 30_000);
  expect(receiver.deliveries.length).toBeGreaterThanOrEqual(1);
}, 240_000);

afterAll(async () => {
  releaseHeldPage();
  await Promise.all([gateway?.kill(), ...Object.values(workers).map((w) => w.process.kill()), outageWorker?.process.kill()]);
  await Promise.all([pages?.close(), receiver?.close(), bot?.close(), outageRedis?.dispose()]);
  await deleteKeysWithPrefix(prefix);
}, 60_000);

/** Submits to the gateway; a 202 is followed on the status endpoint until the request ends. */
async function submit(submitPath: string, body: Record<string, unknown>, statusPath: (id: string) => string): Promise<Record<string, unknown>> {
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  let res = (await (await fetch(`${gatewayUrl}${submitPath}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
  const id = String(res.request_id ?? res.requestId);
  const done = (r: Record<string, unknown>) => !['processing', 'pending', 'PROCESSING'].includes(String(r.status));
  // A failed scrape answers `{error}` without a status; its status endpoint says `failed`.
  for (let i = 0; i < 240 && (!done(res) || res.status === undefined); i++) {
    await new Promise((r) => setTimeout(r, 500));
    res = (await (await fetch(`${gatewayUrl}${statusPath(id)}`, { headers })).json()) as Record<string, unknown>;
  }
  return { ...res, request_id: id };
}

async function scrapeMetrics(baseUrl: string): Promise<{ text: string; samples: PromSample[] }> {
  const res = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, samples: parsePrometheusText(text) };
}

/** Scrapes until `ready` holds (counters are bumped by worker events a moment after the API answered). */
async function metricsWhen(baseUrl: string, ready: (s: PromSample[]) => boolean): Promise<{ text: string; samples: PromSample[] }> {
  let last = await scrapeMetrics(baseUrl);
  for (let i = 0; i < 50 && !ready(last.samples); i++) {
    await new Promise((r) => setTimeout(r, 200));
    last = await scrapeMetrics(baseUrl);
  }
  return last;
}

/** prom-client's default process metrics, under the `gleaner_process_` prefix (platform/metrics.ts). */
function expectProcessMetrics(samples: PromSample[]): void {
  expect(sumOf(samples, 'gleaner_process_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(sumOf(samples, 'gleaner_process_nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  expect(sumOf(samples, 'gleaner_process_process_resident_memory_bytes')).toBeGreaterThan(0);
}

function expectQueueDepths(samples: PromSample[], queue: string): void {
  for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed']) {
    expect(samplesOf(samples, 'gleaner_queue_jobs', { queue, state })).toHaveLength(1);
  }
}

describe('gateway /metrics', () => {
  it('latency histograms per route template and status, never per raw path', async () => {
    const unknownPath = `/no-such-endpoint-${Date.now()}`;
    expect((await fetch(`${gatewayUrl}${unknownPath}`)).status).toBe(404);
    expect((await fetch(`${gatewayUrl}/web-scrapper/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    const { text, samples } = await metricsWhen(gatewayUrl, (s) => sumOf(s, 'gleaner_http_request_duration_seconds_count', { route: 'unmatched' }) >= 1);

    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/web-scrapper', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(samplesOf(samples, 'gleaner_http_request_duration_seconds_bucket', { method: 'POST', route: '/web-scrapper', status: '200', le: '+Inf' })).toHaveLength(1);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/web-scrapper', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/web-scrapper', status: '500' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/documents/parse', status: '200' })).toBeGreaterThanOrEqual(2);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/bot-webhook', status: '200' })).toBe(1);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    // Bounded cardinality: ids and unknown paths never become label values.
    expect(text).not.toContain(scrapeRequestId);
    expect(text).not.toContain(unknownPath);
    const routes = new Set(samplesOf(samples, 'gleaner_http_request_duration_seconds_count').map((s) => s.labels.route));
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-z0-9\-/:.]*)$/i);
  });

  it('status reads are labelled with the route template', async () => {
    const res = await fetch(`${gatewayUrl}/web-scrapper/${scrapeRequestId}`, { headers: { 'x-api-key': apiKey } });
    expect(res.status).toBe(200);
    const { text, samples } = await scrapeMetrics(gatewayUrl);
    expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'GET', route: '/web-scrapper/:requestId', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(scrapeRequestId);
  });

  it('queue depths of every queue it produces to, sampled from Redis at scrape time, and process metrics', async () => {
    const { samples } = await scrapeMetrics(gatewayUrl);
    for (const queue of ['scrape', 'scrape-v1', 'parse', 'bot']) expectQueueDepths(samples, queue);
    // Finished jobs are kept an hour (queues/retention.ts): the work above is visible.
    expect(sumOf(samples, 'gleaner_queue_jobs', { queue: 'scrape', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_queue_jobs', { queue: 'parse', state: 'completed' })).toBeGreaterThanOrEqual(2);
    expectProcessMetrics(samples);
  });
});

describe('worker /metrics on HEALTH_PORT', () => {
  it('scraper-worker: job durations by queue and outcome, failures by code, queue depths', async () => {
    const { samples } = await metricsWhen(workers['scraper-worker'].url, (s) => sumOf(s, 'gleaner_job_duration_seconds_count', { queue: 'scrape', outcome: 'completed' }) >= 1 && sumOf(s, 'gleaner_job_duration_seconds_count', { queue: 'scrape', outcome: 'failed' }) >= 1);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'scrape', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'scrape', outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_bucket', { queue: 'scrape', outcome: 'completed', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_request_failures_total', { family: 'scrape', code: 'E008' })).toBeGreaterThanOrEqual(1);
    expectQueueDepths(samples, 'scrape');
    expectQueueDepths(samples, 'scrape-v1');
    expect(sumOf(samples, 'gleaner_queue_jobs', { queue: 'scrape', state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_queue_jobs', { queue: 'scrape', state: 'failed' })).toBeGreaterThanOrEqual(1);
    expectProcessMetrics(samples);
  });

  it('parser-worker: parse job durations and OCR pages', async () => {
    const { samples } = await metricsWhen(workers['parser-worker'].url, (s) => sumOf(s, 'gleaner_job_duration_seconds_count', { queue: 'parse', outcome: 'completed' }) >= 2);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'parse', outcome: 'completed' })).toBeGreaterThanOrEqual(2);
    // The text file needs no OCR, the one-page scan does.
    expect(sumOf(samples, 'gleaner_ocr_pages_total')).toBe(1);
    expectQueueDepths(samples, 'parse');
    expectProcessMetrics(samples);
  });

  it('webhook-dispatcher: deliveries by family and outcome, delivery job durations', async () => {
    const { samples } = await metricsWhen(workers['webhook-dispatcher'].url, (s) => sumOf(s, 'gleaner_webhook_deliveries_total', { outcome: 'delivered' }) >= 1);
    expect(sumOf(samples, 'gleaner_webhook_deliveries_total', { family: 'scrape', outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'webhook', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expectQueueDepths(samples, 'webhook');
    expectProcessMetrics(samples);
  });

  it('bot-connector: bot job durations', async () => {
    const { samples } = await metricsWhen(workers['bot-connector'].url, (s) => sumOf(s, 'gleaner_job_duration_seconds_count', { queue: 'bot', outcome: 'completed' }) >= 1);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'bot', outcome: 'completed' })).toBe(1);
    expectQueueDepths(samples, 'bot');
    expectProcessMetrics(samples);
  });

  it('a worker only reports the queues it consumes', async () => {
    const { samples } = await scrapeMetrics(workers['bot-connector'].url);
    expect(new Set(samplesOf(samples, 'gleaner_queue_jobs').map((s) => s.labels.queue))).toEqual(new Set(['bot']));
  });
});

describe('health endpoints', () => {
  it.each([...WORKERS])('%s answers /healthz and /readyz 200 while Redis is up', async (name) => {
    const healthz = await fetch(`${workers[name].url}/healthz`);
    expect(healthz.status).toBe(200);
    const readyz = await fetch(`${workers[name].url}/readyz`);
    expect(readyz.status).toBe(200);
    expect(await readyz.json()).toEqual({ ready: true });
    expect((await fetch(`${workers[name].url}/no-such-path`)).status).toBe(404);
  });

  it('gateway answers /healthz and /readyz 200', async () => {
    expect((await fetch(`${gatewayUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${gatewayUrl}/readyz`)).status).toBe(200);
  });

  it("a worker's /readyz turns 503 when its Redis goes away, its /metrics keeps answering, and it recovers", async () => {
    const status = async (p: string) => (await fetch(`${outageWorker.url}${p}`, { signal: AbortSignal.timeout(10_000) })).status;
    expect(await status('/readyz')).toBe(200);
    await outageRedis.stop();
    expect(await waitFor(() => status('/readyz'), (s) => s === 503, 15_000)).toBe(503);
    expect(await status('/healthz')).toBe(200);
    // Queue-depth sampling cannot reach Redis; the scrape still answers (within the sampler's bound).
    const started = Date.now();
    const { samples } = await scrapeMetrics(outageWorker.url);
    expect(Date.now() - started).toBeLessThan(8_000);
    expectProcessMetrics(samples);
    await outageRedis.resume();
    expect(await waitFor(() => status('/readyz'), (s) => s === 200, 30_000)).toBe(200);
  }, 60_000);
});

describe('JSON logs with request and job ids', () => {
  it('the gateway writes one access line per request: request id, method, route pattern, status, duration; never the key', async () => {
    const unknownPath = `/no-such-endpoint-logged-${Date.now()}`;
    expect((await fetch(`${gatewayUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${gatewayUrl}${unknownPath}`, { headers: { 'x-api-key': apiKey } })).status).toBe(404);
    const status = await fetch(`${gatewayUrl}/web-scrapper/${scrapeRequestId}`, { headers: { 'x-api-key': apiKey } });
    expect(status.status).toBe(200);
    await gateway.waitFor(new RegExp(`"route":"/web-scrapper/:requestId"[^\\n]*"status":200`), 10_000);
    const lines = jsonLines(gateway.output()).filter((l) => l.message === 'http request');

    // The submit of the scrape: its line carries the request's id (X-Request-ID, the record's id).
    const submitLine = lines.find((l) => l.requestId === scrapeRequestId && l.method === 'POST');
    expect(submitLine).toMatchObject({ level: 'info', service: 'gateway', route: '/web-scrapper', status: 200, timestamp: expect.any(String) });
    expect(submitLine!.durationMs).toEqual(expect.any(Number));
    expect(submitLine!.durationMs as number).toBeGreaterThan(0);
    const read = lines.find((l) => l.requestId === scrapeRequestId && l.method === 'GET');
    expect(read).toMatchObject({ route: '/web-scrapper/:requestId', status: 200 });
    // Every answer's X-Request-ID is in its line, the 404 of an unknown path included; never the raw path.
    expect(lines.find((l) => l.status === 404 && l.route === 'unmatched')?.requestId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(gateway.output()).not.toContain(unknownPath);
    // Probes (healthchecks every few seconds, Prometheus) stay out of info-level logs.
    expect(lines.filter((l) => ['/healthz', '/readyz', '/metrics'].includes(l.route as string))).toEqual([]);
    // Keys and tokens travel in headers, which are never logged.
    expect(gateway.output()).not.toContain(apiKey);
    expect(gateway.output()).not.toContain(BOT_TOKEN);
  });

  it("a worker's lines about a job carry the request id and the BullMQ job id", () => {
    const lines = jsonLines(workers['scraper-worker'].process.output());
    const done = lines.find((l) => l.message === 'request completed' && l.requestId === scrapeRequestId);
    // The job id is the request id (queues/contract): one grep finds a request across services.
    expect(done).toMatchObject({ level: 'info', service: 'scraper-worker', requestId: scrapeRequestId, jobId: scrapeRequestId, family: 'scrape', attempt: 1 });
    const parsed = jsonLines(workers['parser-worker'].process.output()).filter((l) => l.message === 'request completed');
    expect(parsed.length).toBeGreaterThanOrEqual(2);
    for (const line of parsed) expect(line).toMatchObject({ service: 'parser-worker', requestId: expect.any(String), jobId: line.requestId });
    expect(workers['scraper-worker'].process.output()).not.toContain(apiKey);
  });
});

describe('graceful stop of a worker', () => {
  it("/readyz turns 503 as soon as its BullMQ workers close (SIGTERM), /healthz and /metrics keep answering while the running job finishes, then it exits", async () => {
    // The parser worker consumes one queue: a service with several could read as not running only
    // because an idle queue's worker stops at once. Its own prefix: no other parser-worker of this
    // file may take the job.
    const drainPrefix = testPrefix('metrics-drain');
    const drainEnv = serviceEnv(drainPrefix, { SHUTDOWN_DEADLINE_MS: '60000' });
    const harness = await GatewayHarness.start(drainPrefix, { SYNC_WINDOW_MS: '0' });
    const port = await freePort();
    const worker = startService('parser-worker', { ...drainEnv, PARSER_CONCURRENCY: '1', HEALTH_PORT: String(port) });
    const exited = new Promise<number | null>((resolve) => worker.child.once('exit', (code) => resolve(code)));
    const status = async (p: string) => (await fetch(`http://127.0.0.1:${port}${p}`, { signal: AbortSignal.timeout(10_000) })).status;
    try {
      await worker.waitFor(/ready/, 90_000);
      const account = await harness.account('drain-account');
      const submitted = await fetch(`${harness.url}/documents/parse`, { method: 'POST', headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}/held.txt`, type: 'txt' }) });
      expect(submitted.status).toBe(202);
      const { requestId: id } = (await submitted.json()) as { requestId: string };
      // The worker is inside the job, waiting for the document.
      expect(await waitFor(() => pages.hits['/held.txt'] ?? 0, (n) => n >= 1, 30_000)).toBe(1);
      expect(await status('/readyz')).toBe(200);

      process.kill(worker.child.pid!, 'SIGTERM');
      expect(await waitFor(() => status('/readyz'), (s) => s === 503, 15_000)).toBe(503);
      expect(await status('/healthz')).toBe(200);
      expect(await status('/metrics')).toBe(200);
      expect(worker.child.exitCode).toBeNull();

      // The job it was running is not cut short: released, it completes, is recorded, and the process exits 0.
      releaseHeldPage();
      expect(await settledWithin(exited, 45_000, 'still running')).toBe(0);
      expect(await harness.stores.records.get('parse', id)).toMatchObject({ status: 'completed', result: { data: expect.stringContaining('arrived only after its worker') } });
    } finally {
      releaseHeldPage();
      await worker.kill();
      await harness.stop();
      await deleteKeysWithPrefix(drainPrefix);
    }
  }, 180_000);
});
