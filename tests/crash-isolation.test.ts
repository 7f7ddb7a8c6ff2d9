import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * Issue 24, item 2: a job that crashes the worker process must fail alone. Before, the jobs of
 * another account running beside it during its two crashes stalled twice too and failed for good
 * ("processing failed repeatedly (worker crashed)"). Real gateway and scraper-worker processes on
 * real Redis; the crash is a SIGKILL of the worker process at the moment it fetches the poison
 * page (what an out-of-memory abort does to it), and a fresh worker replaces it each time, as a
 * supervisor would. Account B's scrapes run beside the first crash; after it, each job found
 * stalled runs alone, so the poison's second crash is its own and B's jobs complete.
 */
const SECRET = 'test-secret-0123456789abcdef';
const prefix = testPrefix('crash-isolation');
const env = serviceEnv(prefix, {
  WORKER_LOCK_DURATION_MS: '3000',
  WORKER_STALLED_INTERVAL_MS: '1000',
  SCRAPER_CONCURRENCY: '4',
  SCRAPER_EXTRACT_THREADS: '1',
  ACCOUNT_MAX_CONCURRENT_JOBS: '4',
  SYNC_WINDOW_MS: '300',
});
const story = (n: number) => `Bystander story ${n}: the ferry crossed the bay ${n + 2} times before noon.`;

let stores: TestStores;
let gateway: GatewayProcess;
let site: Awaited<ReturnType<typeof startPageServer>>;
const workers: ServiceProcess[] = [];
let current: ServiceProcess;
let slowInFlight = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;

function launchWorker(): ServiceProcess {
  current = startService('scraper-worker', env);
  workers.push(current);
  return current;
}

/** The poison page kills the worker that fetches it, and a new one is started (a supervisor's restart). */
async function poison(_req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const victim = current;
  await victim.kill('SIGKILL');
  launchWorker();
  res.destroy();
}

async function slow(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const n = Number(/\/slow\/(\d+)/.exec(req.url ?? '')?.[1]);
  slowInFlight++;
  res.once('close', () => slowInFlight--);
  await sleep(3_000);
  if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Story ${n}</title></head><body><article><h1>Story ${n}</h1><p>${story(n)}</p><p>The harbour master counted every crossing in a little book.</p></article></body></html>`);
}

async function submit(apiKey: string, url: string): Promise<string> {
  const res = await fetch(`${gateway.url}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
  const body = (await res.json()) as { request_id?: string };
  expect(res.status).toBe(202);
  return body.request_id!;
}

async function outcome(apiKey: string, id: string): Promise<any> {
  const res = await fetch(`${gateway.url}/web-scrapper/${id}`, { headers: { 'x-api-key': apiKey } });
  return res.json();
}

beforeAll(async () => {
  stores = openTestStores(prefix, SECRET);
  site = await startPageServer({ '/poison': poison }, slow);
  gateway = await startGatewayProcess(env);
}, 90_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill('SIGKILL'), ...workers.map((w) => w.kill('SIGKILL'))]);
  await site?.close();
  await stores?.close();
  await deleteKeysWithPrefix(prefix);
});

describe('a job that crashes its worker process', () => {
  it('fails alone after its second crash; another account\'s scrapes running beside the first crash complete', async () => {
    const a = await createAccountWithKey(stores.stores, 'crasher', { ratePerMinute: 1_000 });
    const b = await createAccountWithKey(stores.stores, 'bystander', { ratePerMinute: 1_000 });
    await launchWorker().waitFor(/ready/, 90_000);

    const bystanders: string[] = [];
    for (let n = 0; n < 3; n++) bystanders.push(await submit(b.apiKey, `${site.url}/slow/${n}`));
    // B's three pages are being fetched when the poison arrives: they run beside the crash.
    expect(await waitFor(() => slowInFlight, (k) => k === 3, 30_000)).toBe(3);
    const first = current;
    const culprit = await submit(a.apiKey, `${site.url}/poison`);
    await waitFor(() => alive(first), (up) => !up, 30_000);
    expect(first.child.signalCode).toBe('SIGKILL');

    const ended = (o: any) => o?.status === 'completed' || o?.status === 'failed';
    const outcomes = await waitFor(
      () => Promise.all([culprit, ...bystanders].map((id, i) => outcome(i === 0 ? a.apiKey : b.apiKey, id))),
      (all) => all.every(ended),
      150_000,
    );
    const [poisoned, ...others] = outcomes;
    expect({ status: poisoned.status, error: poisoned.error }).toEqual({ status: 'failed', error: 'E008: processing failed repeatedly (worker crashed)' });
    others.forEach((o, n) => {
      expect({ n, status: o.status, error: o.error }).toEqual({ n, status: 'completed', error: undefined });
      expect(o.content.text).toContain(story(n));
    });
    // Two crashes, both the poison's: once beside B's jobs, once alone; the third worker failed it
    // without fetching it again. B's pages were fetched again after the first crash.
    expect(site.hits['/poison']).toBe(2);
    expect(workers).toHaveLength(3);
    expect(workers.map(alive)).toEqual([false, false, true]);
    for (let n = 0; n < 3; n++) expect(site.hits[`/slow/${n}`]).toBeGreaterThanOrEqual(2);
    const log = workers[2].output() + workers[1].output();
    expect(log).toMatch(/crashed its worker while running alone/);
  }, 240_000);
});
