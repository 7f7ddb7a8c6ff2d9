import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { parseQueue, QueueProducer, scrapeQueue } from '@gleaner/queues';
import { verifyWebhookSignature } from '@gleaner/safe-fetch';
import { createStores } from '@gleaner/store';
import { serviceEnv } from './support/env.js';
import { parserErrorProblem, scraperErrorProblem } from './support/error-formats.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startPageServer } from './support/page-server.js';
import { REPO_ROOT, startService, type ServiceProcess } from './support/processes.js';
import { DisposableRedis, freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, TEST_REDIS_URL, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * Chaos suite: the real gateway and workers as processes on real Redis, with faults injected from
 * outside: a worker SIGKILLed in the middle of 20 requests, Redis killed and restarted (AOF) under
 * a steady load, a webhook receiver that refuses connections for a while. What is asserted is what
 * the API promises (API-DECISIONS "a request is never lost"): every accepted request ends
 * `completed` (with the right content) or `failed` (with the right error), nothing hangs, no
 * process crashes, outage errors keep their family's format, webhooks arrive (exactly once when
 * only the receiver failed; at least once, under one delivery id, across a Redis outage).
 * Deadlines are generous (a loaded 2-core machine); the outcomes are checked strictly.
 */
const SECRET = 'test-secret-0123456789abcdef';
const DOCS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
/** Short locks and stall checks so a killed worker's jobs are recovered within seconds. */
const FAST_STALLS = { WORKER_LOCK_DURATION_MS: '3000', WORKER_STALLED_INTERVAL_MS: '1000' };

const prefix = testPrefix('chaos');
const env = serviceEnv(prefix, { ...FAST_STALLS, SYNC_WINDOW_MS: '300' });
const started: ServiceProcess[] = [];
let gateway: GatewayProcess;
let stores: TestStores;
let apiKey: string;
let accountId: string;
let pages: Awaited<ReturnType<typeof startPageServer>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function launch(name: string, serviceEnvironment: Record<string, string>): ServiceProcess {
  const proc = startService(name, serviceEnvironment);
  started.push(proc);
  return proc;
}

async function launchReady(name: string, serviceEnvironment: Record<string, string>): Promise<ServiceProcess> {
  const proc = launch(name, serviceEnvironment);
  await proc.waitFor(/ready/, 90_000);
  return proc;
}

const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;

interface Answer {
  status: number; // 0: no answer (network error or client timeout)
  body: any; // parsed JSON as answered (or the raw text), read freely by the assertions
  retryAfter: string | null;
  sentAt: number;
  doneAt: number;
  error?: string;
}

/** One API call that never throws: a refused connection or a hang is an answer with status 0. */
async function call(base: string, key: string, method: 'GET' | 'POST', urlPath: string, body?: unknown, timeoutMs = 30_000): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${base}${urlPath}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* keep the raw text: a non-JSON answer is itself a finding */
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after'), sentAt, doneAt: Date.now() };
  } catch (err) {
    return { status: 0, body: null, retryAfter: null, sentAt, doneAt: Date.now(), error: (err as Error).message };
  }
}

/** Polls each id's status until it is terminal or the deadline passes; returns the last bodies. */
async function pollOutcomes(ids: string[], read: (id: string) => Promise<Answer>, terminal: (body: any) => boolean, timeoutMs: number) {
  const last = new Map<string, any>();
  const deadline = Date.now() + timeoutMs;
  let open = [...ids];
  while (open.length && Date.now() < deadline) {
    const answers = await Promise.all(open.map(read));
    answers.forEach((a, i) => last.set(open[i], a.status === 200 ? a.body : { httpStatus: a.status, body: a.body }));
    open = open.filter((id) => !terminal(last.get(id)));
    if (open.length) await sleep(500);
  }
  return last;
}

/** Jobs active right now, grouped by the worker holding their lock (BullMQ tokens are `<worker id>:<n>`). */
async function activeJobsByWorker(queue: Queue, redis: Redis, queuePrefix: string): Promise<Map<string, string[]>> {
  const byWorker = new Map<string, string[]>();
  for (const job of await queue.getActive()) {
    const token = await redis.get(`${queuePrefix}:${queue.name}:${job.id}:lock`);
    if (!token) continue;
    const worker = token.slice(0, token.lastIndexOf(':'));
    byWorker.set(worker, [...(byWorker.get(worker) ?? []), String(job.id)]);
  }
  return byWorker;
}

/**
 * Waits until both workers hold active jobs and more downloads are in flight than one worker's
 * `concurrency` (so both are downloading), SIGKILLs `victim` and starts a replacement. Returns the
 * jobs each worker held just before the kill (one of the two sets is the victim's).
 */
async function killMidFlight(queue: Queue, redis: Redis, concurrency: number, victim: ServiceProcess, replacement: () => ServiceProcess): Promise<{ snapshot: Map<string, string[]>; next: ServiceProcess }> {
  const { snapshot, downloading } = await waitFor(
    async () => ({ snapshot: await activeJobsByWorker(queue, redis, prefix), downloading: inFlight }),
    (s) => s.snapshot.size >= 2 && s.downloading > concurrency,
    30_000,
  );
  // Both workers are inside jobs, and both are downloading: the victim certainly is.
  expect({ workers: snapshot.size, downloadingBeyondOneWorker: downloading > concurrency }).toEqual({ workers: 2, downloadingBeyondOneWorker: true });
  await victim.kill('SIGKILL');
  expect(victim.child.signalCode).toBe('SIGKILL');
  const next = replacement();
  await next.waitFor(/ready/, 90_000);
  return { snapshot, next };
}

/**
 * Of the two pre-kill job sets, the victim's is the one with jobs recovered from a stall (the
 * survivor's never stall); returns, per set that has any, its recovered jobs. One of the victim's
 * jobs may have finished in the milliseconds between the snapshot and the kill.
 */
async function recoveredFromTheKill(queue: Queue, snapshot: Map<string, string[]>): Promise<string[][]> {
  const stalled = async (id: string) => ((await queue.getJob(id))?.stalledCounter ?? 0) >= 1;
  const perSet = await Promise.all(
    [...snapshot.values()].map(async (jobIds) => {
      const flags = await Promise.all(jobIds.map(stalled));
      return jobIds.filter((_, i) => flags[i]);
    }),
  );
  return perSet.filter((recovered) => recovered.length > 0);
}

beforeAll(async () => {
  stores = openTestStores(prefix, SECRET);
  const account = await createAccountWithKey(stores.stores, 'chaos', { ratePerMinute: 100_000 });
  apiKey = account.apiKey;
  accountId = account.accountId;
  pages = await startPageServer({}, slowRoutes);
  gateway = await startGatewayProcess(env);
  started.push(gateway.process);
}, 90_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.kill('SIGKILL')));
  await pages?.close();
  await stores?.close();
  await deleteKeysWithPrefix(prefix);
});

/** Target pages and documents, each slow enough (1–3 s) that jobs are in flight when a worker dies. */
const delayOf = (n: number) => 1_000 + ((n * 617) % 2_000);
const storyText = (n: number) => `Chaos story number ${n}: the lighthouse keeper counted ${n * 3} ships passing the northern cape before the storm arrived.`;
const docText = (n: number) => `Parser chaos document number ${n} arrived byte by byte over a slow line.`;
const docxBytes = fs.readFileSync(path.join(DOCS, 'docx/nwe-test04-headers.docx'));
const pdfBytes = fs.readFileSync(path.join(DOCS, 'pdf/pdf20-utf8-test.pdf'));

/** Sends `bytes` in 8 pieces spread over `totalMs` (a slow download), stopping if the client left. */
async function trickle(res: http.ServerResponse, bytes: Buffer, totalMs: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) });
  const pieces = 8;
  for (let i = 0; i < pieces; i++) {
    if (res.destroyed) return;
    res.write(bytes.subarray(Math.floor((i * bytes.length) / pieces), Math.floor(((i + 1) * bytes.length) / pieces)));
    await sleep(totalMs / pieces);
  }
  if (!res.destroyed) res.end();
}

const itemFetches: Array<{ from: number; until: number }> = [];
/** Requests the target server is answering right now (a killed worker's end when it dies). */
let inFlight = 0;

async function slowRoutes(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const m = /^\/(story|missing|doc|gone|quick|item)\/(\d+)(\.\w+)?$/.exec((req.url ?? '/').split('?')[0]);
  if (!m) return void res.writeHead(404).end();
  const [, kind, num, ext] = m;
  const n = Number(num);
  inFlight++;
  res.once('close', () => inFlight--);
  if (kind === 'quick') {
    return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Quick ${n}</title></head><body><article><h1>Quick ${n}</h1><p>${storyText(n)}</p><p>A second paragraph keeps the extractor confident about the main content.</p></article></body></html>`);
  }
  if (kind === 'doc') {
    const bytes = ext === '.docx' ? docxBytes : ext === '.pdf' ? pdfBytes : Buffer.from(`${docText(n)}\n\n${'Filler line so the file is not tiny.\n'.repeat(40)}`);
    return trickle(res, bytes, delayOf(n));
  }
  // Items (the outage test) take 0.3–1.3 s: some jobs are always in flight when Redis dies.
  const delay = kind === 'item' ? 300 + ((n * 389) % 1_000) : delayOf(n);
  if (kind === 'item') itemFetches.push({ from: Date.now(), until: Date.now() + delay });
  await sleep(delay);
  if (res.destroyed) return;
  // An item answers its first fetch only (then it is "taken down"): a request whose job runs twice
  // would see the 404 the second time, so a recorded outcome that changes afterwards shows.
  const takenDown = kind === 'item' && (pages.hits[`/item/${n}`] ?? 0) > 1;
  if (kind === 'missing' || kind === 'gone' || takenDown) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>gone</body></html>');
  const label = kind === 'item' ? 'Item' : 'Story';
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
    `<!doctype html><html><head><title>${label} ${n}</title></head><body><article><h1>${label} ${n}</h1><p>${storyText(n)}</p><p>The harbour master wrote the count into the log, as every keeper before him had done.</p></article></body></html>`,
  );
}

describe('a worker SIGKILLed in the middle of 20 requests', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2 });
  });
  afterAll(() => redis.quit());

  it('scraper: every request ends completed with its content or failed with E008 404, none stuck', async () => {
    const slots = 4;
    const workerEnv = { ...env, SCRAPER_CONCURRENCY: String(slots), SCRAPER_EXTRACT_THREADS: '1' };
    const queue = new Queue(scrapeQueue.name, { connection: redis, prefix });
    const workers = await Promise.all([launchReady('scraper-worker', workerEnv), launchReady('scraper-worker', workerEnv)]);
    try {
      // Every fifth target answers 404: a failure that must end `failed`, not be retried forever.
      const plan = Array.from({ length: 20 }, (_, n) => ({ n, ok: n % 5 !== 4 }));
      const submits = await Promise.all(plan.map((p) => call(gateway.url, apiKey, 'POST', '/web-scrapper/', { url: `${pages.url}/${p.ok ? 'story' : 'missing'}/${p.n}` })));
      expect(submits.map((s) => s.status)).toEqual(plan.map(() => 202));
      const ids = submits.map((s) => s.body.request_id as string);

      const { snapshot, next } = await killMidFlight(queue, redis, slots, workers[0], () => launch('scraper-worker', workerEnv));
      const outcomes = await pollOutcomes(ids, (id) => call(gateway.url, apiKey, 'GET', `/web-scrapper/${id}`), (b) => b?.status === 'completed' || b?.status === 'failed', 90_000);

      plan.forEach((p, i) => {
        const body = outcomes.get(ids[i]);
        if (p.ok) {
          expect({ n: p.n, status: body?.status }).toEqual({ n: p.n, status: 'completed' });
          expect(body.content.text).toContain(storyText(p.n));
          expect(body.content.meta.title).toBe(`Story ${p.n}`);
        } else {
          expect({ n: p.n, status: body?.status, error: body?.error }).toEqual({ n: p.n, status: 'failed', error: 'E008: target answered HTTP 404' });
        }
      });
      // The killed worker's jobs really were in flight: recovered from the stall, fetched again.
      const recovered = await recoveredFromTheKill(queue, snapshot);
      expect(recovered).toHaveLength(1);
      const refetched = recovered[0].map((jobId) => plan[ids.indexOf(jobId)]).filter((p) => pages.hits[`/${p.ok ? 'story' : 'missing'}/${p.n}`] >= 2);
      expect(refetched.length).toBeGreaterThanOrEqual(1);
      expect(alive(workers[1]) && alive(next) && gateway.alive()).toBe(true);
    } finally {
      await queue.close();
      await Promise.all(started.filter((p) => p !== gateway.process).map((p) => p.kill('SIGKILL')));
    }
  }, 180_000);

  it('parser: every document (txt, docx, pdf, trickled slowly) ends COMPLETED with its text or FAILED, none stuck', async () => {
    const slots = 3;
    const workerEnv = { ...env, PARSER_CONCURRENCY: String(slots) };
    const queue = new Queue(parseQueue.name, { connection: redis, prefix });
    const workers = await Promise.all([launchReady('parser-worker', workerEnv), launchReady('parser-worker', workerEnv)]);
    try {
      const kinds = ['txt', 'txt', 'docx', 'txt', 'pdf'] as const;
      // Two documents are missing (404): they must end FAILED with the download failure.
      const plan = Array.from({ length: 20 }, (_, n) => ({ n, type: kinds[n % kinds.length], ok: n !== 7 && n !== 16 }));
      const submits = await Promise.all(
        plan.map((p) => call(gateway.url, apiKey, 'POST', '/documents/parse', { url: `${pages.url}/${p.ok ? 'doc' : 'gone'}/${p.n}.${p.type}`, type: p.type })),
      );
      expect(submits.map((s) => s.status)).toEqual(plan.map(() => 202));
      const ids = submits.map((s) => s.body.requestId as string);

      const { snapshot, next } = await killMidFlight(queue, redis, slots, workers[0], () => launch('parser-worker', workerEnv));
      const outcomes = await pollOutcomes(ids, (id) => call(gateway.url, apiKey, 'GET', `/documents/status/${id}`), (b) => b?.status === 'COMPLETED' || b?.status === 'FAILED', 120_000);

      plan.forEach((p, i) => {
        const body = outcomes.get(ids[i]);
        if (!p.ok) {
          expect({ n: p.n, status: body?.status, error: body?.error, details: body?.details }).toEqual({
            n: p.n,
            status: 'FAILED',
            error: '500-001: Processing error',
            details: ['document download failed: target answered HTTP 404'],
          });
          return;
        }
        expect({ n: p.n, status: body?.status }).toEqual({ n: p.n, status: 'COMPLETED' });
        const expected = p.type === 'txt' ? docText(p.n) : p.type === 'docx' ? 'Les Précieuses ridicules' : 'Some paragraph text.';
        expect(body.data).toContain(expected);
      });
      const recovered = await recoveredFromTheKill(queue, snapshot);
      expect(recovered).toHaveLength(1);
      const refetched = recovered[0].map((jobId) => plan[ids.indexOf(jobId)]).filter((p) => pages.hits[`/${p.ok ? 'doc' : 'gone'}/${p.n}.${p.type}`] >= 2);
      expect(refetched.length).toBeGreaterThanOrEqual(1);
      expect(alive(workers[1]) && alive(next) && gateway.alive()).toBe(true);
    } finally {
      await queue.close();
      await Promise.all(started.filter((p) => p !== gateway.process).map((p) => p.kill('SIGKILL')));
    }
  }, 180_000);
});

describe('a webhook receiver that refuses connections for a while', () => {
  it('gets every delivery (scrape, v1 and parse) exactly once after it comes back', async () => {
    const hookEnv = { ...env, WEBHOOK_BACKOFF_BASE_MS: '300', WEBHOOK_TIMEOUT_MS: '2000' };
    await Promise.all([
      launchReady('scraper-worker', { ...hookEnv, SCRAPER_EXTRACT_THREADS: '1' }),
      launchReady('parser-worker', { ...hookEnv, PARSER_CONCURRENCY: '2' }),
      launchReady('webhook-dispatcher', hookEnv),
    ]);
    // The URL is handed out now; nothing listens on it yet, so every attempt is refused.
    const port = await freePort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
    try {
      type Family = 'scrape' | 'scrape-v1' | 'parse';
      const plan: Array<{ family: Family; n: number }> = [
        ...Array.from({ length: 10 }, (_, n) => ({ family: 'scrape' as const, n })),
        ...Array.from({ length: 5 }, (_, i) => ({ family: 'scrape-v1' as const, n: 10 + i })),
        ...Array.from({ length: 5 }, (_, i) => ({ family: 'parse' as const, n: 20 + i })),
      ];
      const submit = ({ family, n }: { family: Family; n: number }) =>
        family === 'scrape'
          ? call(gateway.url, apiKey, 'POST', '/web-scrapper/', { url: `${pages.url}/quick/${n}`, webhook: hookUrl })
          : family === 'scrape-v1'
            ? call(gateway.url, apiKey, 'POST', '/v1/llm-web-scrapper', { url: `${pages.url}/quick/${n}`, use_llm: false, webhook: hookUrl })
            : call(gateway.url, apiKey, 'POST', '/documents/parse', { url: `${pages.url}/doc/${n}.txt`, type: 'txt', webhook: hookUrl });
      const submits = await Promise.all(plan.map(submit));
      expect(submits.map((s) => s.status === 200 || s.status === 202)).toEqual(plan.map(() => true));
      const ids = submits.map((s) => String(s.body.request_id ?? s.body.requestId));
      const downSince = Date.now();
      const recordsNow = () => Promise.all(plan.map((p, i) => stores.stores.records.get(p.family, ids[i])));

      // Every request's delivery was tried and refused at least once before the receiver listens.
      const refused = await waitFor(recordsNow, (records) => records.every((r) => r?.webhook?.status === 'pending' && r.webhook.attempts >= 1), 45_000);
      expect(refused.map((r) => r?.webhook?.lastError ?? '')).toEqual(ids.map(() => expect.stringMatching(/ECONNREFUSED/)));
      await sleep(Math.max(0, 7_000 - (Date.now() - downSince)));
      receiver = await startWebhookReceiver([200], port);

      const got = await waitFor(() => receiver!.deliveries, (d) => d.length >= ids.length, 60_000);
      await sleep(5_000); // a duplicate (next backoff step, or a stalled job run again) would be here by now
      expect(got).toHaveLength(ids.length);
      expect(got.map((d) => d.headers['x-request-id']).sort()).toEqual([...ids].sort());
      expect(new Set(got.map((d) => d.headers['x-webhook-delivery'])).size).toBe(ids.length);
      const secret = await stores.stores.accounts.webhookSecret(accountId);
      for (const d of got) {
        const { family, n } = plan[ids.indexOf(d.headers['x-request-id'] as string)];
        expect(Number(d.headers['x-webhook-attempt'])).toBeGreaterThanOrEqual(2);
        expect(verifyWebhookSignature(secret!, d.rawBody, d.headers['x-webhook-signature'] as string)).toBe(true);
        expect(d.headers['user-agent']).toBe(family === 'parse' ? 'Document-Parser-Webhook/1.0' : 'Web-Scraper-Webhook/1.0');
        const body = JSON.parse(d.rawBody);
        if (family === 'scrape') {
          expect(body).toMatchObject({ request_id: d.headers['x-request-id'], status: 'completed' });
          expect(body.content.text).toContain(storyText(n));
        } else if (family === 'scrape-v1') {
          expect(body).toMatchObject({ request_id: d.headers['x-request-id'], status: 'completed' });
          expect(body.scraped_content.text).toContain(storyText(n));
        } else {
          expect(body).toMatchObject({ requestId: d.headers['x-request-id'], status: 'COMPLETED' });
          expect(body.data).toContain(docText(n));
        }
      }
      const records = await waitFor(recordsNow, (rs) => rs.every((r) => r?.webhook?.status === 'delivered'));
      expect(records.map((r) => r?.webhook?.status)).toEqual(ids.map(() => 'delivered'));
    } finally {
      await receiver?.close();
      await Promise.all(started.filter((p) => p !== gateway.process).map((p) => p.kill('SIGKILL')));
    }
  }, 180_000);
});

describe('Redis killed and restarted under load (AOF on)', () => {
  /**
   * The narrowest window of the outage, made deterministic: Redis dies after the job is queued and
   * before the gateway starts its window wait. In a process, an unhandled rejection there ends the
   * gateway (Node's default), so the wait must neither reject nor leave one behind.
   */
  it('a window wait that starts just after Redis died is a timeout, with no unhandled rejection', async () => {
    const redis = await DisposableRedis.start();
    const producer = new QueueProducer(scrapeQueue, { target: { kind: 'server', url: redis.url }, prefix: testPrefix('chaos-wait') });
    const unhandled: unknown[] = [];
    let down = false;
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await producer.ready();
      const job = await producer.add({ requestId: 'r-1', accountId: 'a-1', url: 'http://127.0.0.1:9/x', outputType: 'plaintext', useLlm: false }, 'r-1');
      await redis.stop();
      down = true;
      const started = Date.now();
      await expect(producer.waitForFinish(job, 1_500)).resolves.toEqual({ outcome: 'timeout' });
      expect(Date.now() - started).toBeLessThan(5_000);
      await sleep(200);
      expect(unhandled.map((r) => (r as Error).message)).toEqual([]);
      // AOF: the job queued just before Redis died is still waiting after the restart.
      await redis.resume();
      down = false;
      expect(await waitFor(() => producer.queue.getJobCounts('wait').then((c) => c.wait, () => -1), (n) => n === 1, 10_000)).toBe(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      if (down) await redis.resume();
      // BullMQ's QueueEvents.close() never returns while its client waits to reconnect: let the
      // reconnect (capped at 2 s) happen first.
      await sleep(2_500);
      await producer.close();
      await redis.dispose();
    }
  }, 30_000);

  it('answers E006 / 500-002 with Retry-After during the outage, recovers by itself, and loses no accepted request', async () => {
    const redis = await DisposableRedis.start();
    const outagePrefix = testPrefix('chaos-outage');
    const outageEnv = serviceEnv(outagePrefix, { ...FAST_STALLS, REDIS_URL: redis.url, SYNC_WINDOW_MS: '3000', WEBHOOK_BACKOFF_BASE_MS: '300', WEBHOOK_TIMEOUT_MS: '2000', SCRAPER_EXTRACT_THREADS: '1' });
    const receiver = await startWebhookReceiver([200]);
    const own: ServiceProcess[] = [];
    try {
      const setup = new Redis(redis.url, { maxRetriesPerRequest: 2 });
      const account = await createAccountWithKey(createStores(setup, outagePrefix, SECRET), 'outage', { ratePerMinute: 100_000 });
      setup.disconnect(); // the test's own client must not ride through the outage
      const [gw, worker, dispatcher] = await Promise.all([
        startGatewayProcess(outageEnv),
        launchReady('scraper-worker', outageEnv),
        launchReady('webhook-dispatcher', outageEnv),
      ]);
      own.push(gw.process, worker, dispatcher);

      type Logged = Answer & { kind: 'scrape' | 'parse' | 'status'; n?: number; target?: string };
      const neverIssued = '01900000-0000-7000-8000-000000000000'; // read until the first id is accepted
      const log: Logged[] = [];
      const accepted: Array<{ id: string; n: number; at: number }> = [];
      let seq = 0;
      let running = true;
      const scrapeLane = async () => {
        while (running) {
          const n = seq++;
          const a = await call(gw.url, account.apiKey, 'POST', '/web-scrapper/', { url: `${pages.url}/item/${n}`, webhook: receiver.url });
          log.push({ ...a, kind: 'scrape', n });
          if ((a.status === 200 || a.status === 202) && typeof a.body?.request_id === 'string') accepted.push({ id: a.body.request_id, n, at: a.doneAt });
          await sleep(150);
        }
      };
      const statusLane = async () => {
        while (running) {
          const target = accepted.length ? accepted[Math.floor(Math.random() * accepted.length)].id : neverIssued;
          log.push({ ...(await call(gw.url, account.apiKey, 'GET', `/web-scrapper/${target}`)), kind: 'status', target });
          await sleep(100);
        }
      };
      const lanes = [scrapeLane(), scrapeLane(), scrapeLane(), statusLane()];

      await waitFor(() => accepted.length, (n) => n >= 10, 60_000);
      // Stop while pages are being fetched, so jobs are in flight when Redis dies.
      await waitFor(() => itemFetches.filter((f) => f.until > Date.now() + 200).length, (n) => n >= 2, 10_000);
      const stopping = Date.now();
      await redis.stop();
      const down = Date.now();
      // The parser has no worker here: its submits are sent only while Redis is certainly down.
      while (Date.now() - down < 5_000) {
        log.push({ ...(await call(gw.url, account.apiKey, 'POST', '/documents/parse', { url: `${pages.url}/doc/1.txt`, type: 'txt' })), kind: 'parse' });
        await sleep(250);
      }
      const resuming = Date.now();
      const fetchingWhenRedisDied = itemFetches.filter((f) => f.from <= stopping && f.until >= down).length;
      await redis.resume();
      const acceptedBeforeResume = accepted.length;
      await waitFor(() => accepted.length - acceptedBeforeResume, (n) => n >= 10, 60_000);
      running = false;
      await Promise.all(lanes);

      // Answers sent and received entirely while Redis was down: the outage error of each family.
      const during = log.filter((a) => a.sentAt >= down && a.doneAt <= resuming);
      const problems: string[] = [];
      for (const a of during) {
        const where = `${a.kind} sent +${a.sentAt - down} ms`;
        if (a.kind === 'parse') {
          if (a.status !== 500 || parserErrorProblem(a.body, 500) || !String(a.body.error).startsWith('500-002: ')) problems.push(`${where}: ${a.status} ${JSON.stringify(a.body)}`);
        } else if (a.status !== 503 || scraperErrorProblem(a.body, 503) || !String(a.body.error).startsWith('E006: ')) problems.push(`${where}: ${a.status} ${JSON.stringify(a.body)}`);
        if (!(Number(a.retryAfter) > 0)) problems.push(`${where}: Retry-After ${a.retryAfter}`);
        if (a.doneAt - a.sentAt > 5_000) problems.push(`${where}: took ${a.doneAt - a.sentAt} ms`);
      }
      // Every other answer is a success or the same outage error; never a hang, a reset, a 500, or
      // a 404 for an id that was accepted (a lost record).
      for (const a of log.filter((x) => !during.includes(x))) {
        const ok = a.kind === 'status' ? a.status === 200 || (a.status === 404 && a.target === neverIssued) : a.status === 200 || a.status === 202;
        const outageError = a.status === 503 && String(a.body?.error).startsWith('E006: ') && Number(a.retryAfter) > 0;
        if (!ok && !outageError) problems.push(`${a.kind} sent ${a.sentAt - stopping} ms after the stop: ${a.status} ${a.error ?? JSON.stringify(a.body)}`);
      }
      reportFigures(
        `chaos outage: Redis down ${resuming - down} ms; ${fetchingWhenRedisDied} scrapes were fetching when it died; ` +
          `answers during the outage: ${['scrape', 'parse', 'status'].map((k) => `${k} ${during.filter((a) => a.kind === k).length}`).join(', ')}; ` +
          `accepted ${accepted.length} (${acceptedBeforeResume} before the restart)\n`,
      );
      expect(problems).toEqual([]);
      expect(fetchingWhenRedisDied).toBeGreaterThanOrEqual(1);
      expect({
        scrape: during.filter((a) => a.kind === 'scrape').length >= 3,
        parse: during.filter((a) => a.kind === 'parse').length >= 3,
        status: during.filter((a) => a.kind === 'status').length >= 3,
      }).toEqual({ scrape: true, parse: true, status: true });

      // Recovered by themselves: no process died, and the 20 s window works again (QueueEvents
      // reconnected), not just the 202 path.
      expect({ gateway: gw.alive(), worker: alive(worker), dispatcher: alive(dispatcher) }).toEqual({ gateway: true, worker: true, dispatcher: true });
      expect(log.some((a) => a.kind === 'scrape' && a.sentAt > resuming && a.status === 200)).toBe(true);

      // None lost: every accepted request, before or after the outage, completes with its page.
      const ids = accepted.map((a) => a.id);
      const outcomes = await pollOutcomes(ids, (id) => call(gw.url, account.apiKey, 'GET', `/web-scrapper/${id}`), (b) => b?.status === 'completed' || b?.status === 'failed', 90_000);
      const wrong = accepted
        .map(({ id, n }) => ({ n, body: outcomes.get(id) }))
        .filter(({ n, body }) => body?.status !== 'completed' || !String(body.content?.text).includes(storyText(n)))
        .map(({ n, body }) => ({ n, status: body?.status, error: body?.error }));
      expect(wrong).toEqual([]);
      // And each one's webhook arrived (at least once; a retry keeps its delivery id).
      const delivered = await waitFor(
        () => receiver.deliveries,
        (d) => ids.every((id) => d.some((x) => x.headers['x-request-id'] === id)),
        60_000,
      );
      expect(ids.filter((id) => !delivered.some((d) => d.headers['x-request-id'] === id))).toEqual([]);
      for (const id of ids) expect(new Set(delivered.filter((d) => d.headers['x-request-id'] === id).map((d) => d.headers['x-webhook-delivery'])).size).toBe(1);
      const refetched = accepted.filter(({ n }) => (pages.hits[`/item/${n}`] ?? 0) > 1).length;
      reportFigures(`chaos outage: ${refetched} pages fetched twice; ${delivered.length - ids.length} duplicate webhook deliveries\n`);
    } finally {
      await Promise.all(own.map((p) => p.kill('SIGKILL')));
      await receiver.close();
      await redis.dispose();
    }
  }, 240_000);
});
