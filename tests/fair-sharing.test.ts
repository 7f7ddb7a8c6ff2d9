import fs from 'node:fs';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { pageListedManyTimesPdf } from './support/hand-written-pdf.js';
import { startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * Issue 24, item 2: one account must not starve the others, within its own 60/min. Real gateway,
 * scraper-worker and parser-worker processes with their default share per account
 * (ACCOUNT_MAX_CONCURRENT_JOBS unset: half of a worker's concurrency), hostile targets served
 * locally. Account A floods each worker; account B's trivial request must still complete inside
 * a 5 s window (the gateway answers 200 only when the job finished within SYNC_WINDOW_MS, else
 * 202). Deadlines are shortened so the test ends sooner; that they hold is checked too.
 */
const SECRET = 'test-secret-0123456789abcdef';
const prefix = testPrefix('fair-sharing');
// A's big pages are extracted one at a time (its share of the two threads) within an 8 s budget,
// so that its hanging scrapes take their turn within the test.
const env = serviceEnv(prefix, { SYNC_WINDOW_MS: '5000', SCRAPER_FETCH_TIMEOUT_MS: '20000', SCRAPER_EXTRACT_BUDGET_MS: '8000', PARSER_DOWNLOAD_TIMEOUT_MS: '15000', PARSER_CONCURRENCY: '2' });
// The default share is what is under test (tests/support/env.ts lifts it for other tests).
delete env.ACCOUNT_MAX_CONCURRENT_JOBS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (p: ServiceProcess) => p.child.exitCode === null && p.child.signalCode === null;
const residentMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

let stores: TestStores;
let gateway: GatewayProcess;
let site: Awaited<ReturnType<typeof startPageServer>>;
const started: ServiceProcess[] = [];
let a: CreatedAccount;
let b: CreatedAccount;

/** Requests the target server holds open right now, by kind. */
const inFlight: Record<string, number> = { hang: 0, big: 0, drip: 0 };
const peak: Record<string, number> = { hang: 0, big: 0, drip: 0 };
function track(kind: string, res: http.ServerResponse): void {
  inFlight[kind]++;
  peak[kind] = Math.max(peak[kind], inFlight[kind]);
  res.once('close', () => inFlight[kind]--);
}

/** A 9 MB article: long enough that extracting it keeps a thread busy for seconds. */
const BIG_PAGE = Buffer.from(
  `<!doctype html><html><head><title>Big</title></head><body><article>${'<p>An endless report on the state of the orchards, paragraph after paragraph, with <a href="/x">links</a> and <b>emphasis</b>.</p>\n'.repeat(72_000)}</article></body></html>`,
);

async function routes(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const [, kind] = /^\/(\w+)/.exec(req.url ?? '/') ?? [];
  if (kind === 'hang') return void track('hang', res); // never answers
  if (kind === 'big') {
    track('big', res);
    return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BIG_PAGE);
  }
  if (kind === 'drip') {
    // A document at 2 bytes a second.
    track('drip', res);
    res.writeHead(200, { 'content-type': 'application/pdf' });
    const timer = setInterval(() => res.write('%P'), 1_000);
    res.once('close', () => clearInterval(timer));
    return;
  }
  if (kind === 'claims') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(pageListedManyTimesPdf('One page claimed 100,000 times.', 100_000));
  if (kind === 'tiny') return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>Tiny</title></head><body><article><h1>Tiny</h1><p>Account B's small page ${req.url} still gets read at once.</p></article></body></html>`);
  if (kind === 'note') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`Account B's note ${req.url}: parsed while another account floods the parser.\n`);
  res.writeHead(404).end();
}

async function post(account: CreatedAccount, path: string, body: Record<string, unknown>): Promise<{ status: number; body: any; ms: number }> {
  const t = Date.now();
  const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json(), ms: Date.now() - t };
}

async function launch(name: string): Promise<ServiceProcess> {
  const proc = startService(name, env);
  started.push(proc);
  await proc.waitFor(/ready/, 90_000);
  return proc;
}

beforeAll(async () => {
  stores = openTestStores(prefix, SECRET);
  a = await createAccountWithKey(stores.stores, 'flooder', { ratePerMinute: 60 });
  b = await createAccountWithKey(stores.stores, 'neighbour', { ratePerMinute: 60 });
  site = await startPageServer({}, routes);
  gateway = await startGatewayProcess(env);
  started.push(gateway.process);
}, 90_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.kill('SIGKILL')));
  await site?.close();
  await stores?.close();
  await deleteKeysWithPrefix(prefix);
});

describe('scraper-worker (default concurrency 8, two extraction threads)', () => {
  it('answers account B 200 within 5 s while account A has four 9 MB pages and 40 hanging scrapes queued and in flight', async () => {
    const worker = await launch('scraper-worker');
    const flood = [
      ...Array.from({ length: 4 }, (_, n) => post(a, '/web-scrapper/', { url: `${site.url}/big/${n}` })),
      ...Array.from({ length: 40 }, (_, n) => post(a, '/web-scrapper/', { url: `${site.url}/hang/${n}` })),
    ];
    // A's four big pages are being read (fetched, then extracted one thread at a time).
    expect(await waitFor(() => site.hits, (h) => [0, 1, 2, 3].every((n) => h[`/big/${n}`] === 1), 30_000)).toBeTruthy();
    await sleep(500);
    const duringBig = await post(b, '/web-scrapper/', { url: `${site.url}/tiny/1` });
    const rssDuringBig = residentMb(worker.child.pid!);
    reportFigures(`fair sharing, scraper: B answered ${duringBig.status} in ${duringBig.ms} ms beside A's four 9 MB pages (worker ${Math.round(rssDuringBig)} MB)\n`);
    expect({ status: duringBig.status, text: duringBig.body.text_content }).toEqual({ status: 200, text: expect.stringContaining("Account B's small page /tiny/1") });

    // Then A's hanging scrapes hold its share of the slots.
    expect(await waitFor(() => inFlight.hang, (n) => n >= 4, 90_000)).toBeGreaterThanOrEqual(4);
    const duringHang = await post(b, '/web-scrapper/', { url: `${site.url}/tiny/2` });
    reportFigures(`fair sharing, scraper: B answered ${duringHang.status} in ${duringHang.ms} ms beside ${inFlight.hang} of A's hanging fetches (peak ${peak.hang})\n`);
    expect({ status: duringHang.status, text: duringHang.body.text_content }).toEqual({ status: 200, text: expect.stringContaining("Account B's small page /tiny/2") });
    // A never held more than its share (4 of 8) of fetches at once.
    expect(peak.hang).toBeLessThanOrEqual(4);

    // The fetch deadline holds and is not retried: A's first hanging scrapes fail, each fetched
    // once, at 20 s (read from the store: A's own key is at its 60/min).
    const hangIds = (await Promise.all(flood)).slice(4).map((r) => r.body.request_id as string);
    const records = await waitFor(() => Promise.all(hangIds.map((id) => stores.stores.records.get('scrape', id))), (rs) => rs.some((r) => r?.status === 'failed' || r?.status === 'completed'), 60_000);
    const ended = records.map((r, n) => ({ n, status: r?.status, error: r?.error })).filter((r) => r.status === 'failed' || r.status === 'completed');
    expect(ended.length).toBeGreaterThanOrEqual(1);
    for (const { n, status, error } of ended) {
      expect({ status, error }).toEqual({ status: 'failed', error: { code: 'E008', message: 'target did not answer within 20 s' } });
      expect(site.hits[`/hang/${n}`]).toBe(1);
    }
    expect(alive(worker)).toBe(true);
    await worker.kill('SIGKILL');
  }, 240_000);
});

describe('parser-worker (concurrency 2)', () => {
  it('answers account B 200 within 5 s while account A sends the 100,000-page PDF and 2-bytes/s documents', async () => {
    const worker = await launch('parser-worker');
    const flood = [
      post(a, '/documents/parse', { url: `${site.url}/drip/1.pdf`, type: 'pdf' }),
      post(a, '/documents/parse', { url: `${site.url}/claims.pdf`, type: 'pdf' }),
      post(a, '/documents/parse', { url: `${site.url}/drip/2.pdf`, type: 'pdf' }),
      post(a, '/documents/parse', { url: `${site.url}/drip/3.pdf`, type: 'pdf' }),
    ];
    expect(await waitFor(() => inFlight.drip, (n) => n >= 1, 30_000)).toBeGreaterThanOrEqual(1);
    await sleep(500);
    const beside = await post(b, '/documents/parse', { url: `${site.url}/note/1.txt`, type: 'txt' });
    reportFigures(`fair sharing, parser: B answered in ${beside.ms} ms beside A's drip download (${inFlight.drip} in flight, peak ${peak.drip})\n`);
    expect({ status: beside.status, data: beside.body.data }).toEqual({ status: 200, data: expect.stringContaining("Account B's note /note/1.txt") });
    expect(peak.drip).toBe(1);

    // A's own requests end on their own terms: the claimed pages refused, the drips at the deadline, once each.
    const ids = (await Promise.all(flood)).map((r) => r.body.requestId as string);
    // Read from the store: A's own key is at its 60/min.
    const outcomes = await waitFor(() => Promise.all(ids.map((id) => stores.stores.records.get('parse', id))), (all) => all.every((o) => o?.status === 'failed' || o?.status === 'completed'), 90_000);
    const drip = { code: '500-001', message: 'Processing error', details: ['document download failed: target did not answer within 15 s'] };
    expect(outcomes.map((o) => ({ status: o?.status, error: o?.error }))).toEqual([
      { status: 'failed', error: drip },
      { status: 'failed', error: { code: '400-001', message: 'Invalid file type', details: ["the PDF's page tree lists the same page more than once (page 2 is page 1 again, of 100,000 claimed)"] } },
      { status: 'failed', error: drip },
      { status: 'failed', error: drip },
    ]);
    expect([1, 2, 3].map((n) => site.hits[`/drip/${n}.pdf`])).toEqual([1, 1, 1]);
    expect(alive(worker)).toBe(true);
  }, 180_000);
});
