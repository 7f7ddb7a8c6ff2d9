import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startPageServer } from './support/page-server.js';
import fs from 'node:fs';
import { startService, type ServiceProcess } from './support/processes.js';
import { parsePrometheusText, sumOf } from './support/prometheus.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { RENDERING_FIXTURES, renderingFixtureRoutes } from './support/rendering-fixtures.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';
import { realSitePages } from './support/web-corpus.js';
import { wordF1 } from './support/word-f1.js';
import { reportFigures } from './support/figures.js';

/**
 * `render_js` end to end: the gateway, the scraper-worker, the browser-worker (Debian's Chromium)
 * and the webhook dispatcher as real processes, the client-rendered fixtures and slow pages from
 * a local server.
 */
const prefix = testPrefix('browser');
const env = serviceEnv(prefix, { SCRAPER_CONCURRENCY: '8', BROWSER_CONCURRENCY: '2', WEBHOOK_BACKOFF_BASE_MS: '100' });
const corpusPages = realSitePages().slice(0, 4);
let gateway: GatewayProcess;
let scraper: ServiceProcess;
let browserWorker: ServiceProcess;
let dispatcher: ServiceProcess;
let test: TestStores;
let site: Awaited<ReturnType<typeof startPageServer>>;
let account: CreatedAccount;
let healthPort: number;

beforeAll(async () => {
  const routes: Parameters<typeof startPageServer>[0] = {
    ...renderingFixtureRoutes(),
    // Answers after 25 s: past the 20 s window, inside the default 30 s fetch deadline.
    '/slow-25s': (_q, s) => void setTimeout(() => s.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Slow</title></head><body><article><h1>Slow page</h1><p>This page took twenty-five seconds to answer, and it still arrived in full.</p></article></body></html>'), 25_000).unref(),
    // Sends its head and then a line every 300 ms, for ever.
    '/never-loads': (_q, s) => {
      s.writeHead(200, { 'content-type': 'text/html' });
      s.write('<html><body><p>Still loading…</p>');
      const timer = setInterval(() => s.write('<p>…</p>'), 300);
      s.on('close', () => clearInterval(timer));
    },
  };
  for (const p of corpusPages) routes[`/corpus/${p.folder}/page.html`] = (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(p.source);
  site = await startPageServer(routes);
  scraper = startService('scraper-worker', env);
  healthPort = await freePort();
  browserWorker = startService('browser-worker', { ...env, HEALTH_PORT: String(healthPort) });
  dispatcher = startService('webhook-dispatcher', env);
  [gateway] = await Promise.all([startGatewayProcess(env), scraper.waitFor(/ready/), browserWorker.waitFor(/ready/), dispatcher.waitFor(/ready/)]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  account = await createAccountWithKey(test.stores, 'renderer', { ratePerMinute: 10_000 });
}, 90_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill(), scraper?.kill(), browserWorker?.kill(), dispatcher?.kill()]);
  await site?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

type Body = Record<string, any>;

async function submit(body: Record<string, unknown>): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${gateway.url}/web-scrapper/`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Body };
}

async function statusOf(requestId: string): Promise<Body> {
  const res = await fetch(`${gateway.url}/web-scrapper/${requestId}`, { headers: { 'x-api-key': account.apiKey } });
  return (await res.json()) as Body;
}

/** The submit's answer, or its completed status when it answered 202: `{text, meta}` either way. */
async function scrape(body: Record<string, unknown>): Promise<{ text: string; meta: Body; status: number }> {
  const answer = await submit(body);
  if (answer.status === 200) return { text: answer.body.text_content, meta: answer.body.meta, status: 200 };
  expect(answer.status).toBe(202);
  const done = await waitFor(() => statusOf(answer.body.request_id), (b) => b.status === 'completed' || b.status === 'failed', 120_000);
  expect(done.status).toBe('completed');
  return { text: done.content.text, meta: done.content.meta, status: 202 };
}

describe('request fields', () => {
  const url = () => `${site.url}${RENDERING_FIXTURES.appShell.path}`;
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['render_js of another type', { render_js: 1 }, 400, 'E001: '],
    ['render_js another word', { render_js: 'yes' }, 400, "E009: render_js must be 'auto', true or false"],
    ['wait_for not a number', { wait_for: '100' }, 400, 'E001: '],
    ['wait_for over 30 s', { wait_for: 30_001 }, 400, 'E009: wait_for must be a whole number of milliseconds from 0 to 30000'],
    ['wait_for negative', { wait_for: -1 }, 400, 'E009: wait_for must be'],
    ['wait_for a fraction', { wait_for: 1.5 }, 400, 'E009: wait_for must be'],
    ['wait_for longer than timeout', { wait_for: 5_000, timeout: 5_000 }, 400, 'E009: wait_for must be shorter than timeout'],
    ['timeout under 1 s', { timeout: 999 }, 400, 'E009: timeout must be a whole number of milliseconds from 1000 to 120000'],
    ['timeout over 120 s', { timeout: 120_001 }, 400, 'E009: timeout must be'],
    ['an empty wait_for_selector', { wait_for_selector: ' ' }, 400, 'E009: wait_for_selector must be a CSS selector of 1 to 1000 characters'],
    ['a wait with render_js false', { render_js: false, wait_for_selector: '#x' }, 400, "E009: wait_for and wait_for_selector need rendering: render_js must be 'auto' or true"],
    ['a selector that is not CSS', { render_js: true, wait_for_selector: 'div[' }, 400, "E009: wait_for_selector 'div[' is not a valid CSS selector"],
  ];
  for (const [name, fields, status, error] of cases) {
    it(`${name}: ${status} ${error}`, async () => {
      const answer = await submit({ url: url(), ...fields });
      expect(answer.status).toBe(status);
      expect(answer.body.error).toEqual(expect.stringMatching(new RegExp(`^${error.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)));
    });
  }
});

describe('client-rendered pages', () => {
  it('render_js "auto": every fixture comes back rendered, word F1 >= 0.95 against its text', async () => {
    const results = await Promise.all(
      Object.entries(RENDERING_FIXTURES).map(async ([name, f]) => {
        const { text, meta } = await scrape({ url: `${site.url}${f.path}`, ...(f.waitForSelector ? { wait_for_selector: f.waitForSelector } : {}) });
        return { name, f1: Number(wordF1(text, f.expected).toFixed(3)), rendered: meta.rendered };
      }),
    );
    reportFigures(`render_js auto: ${results.map((r) => `${r.name} F1 ${r.f1}`).join(', ')}\n`);
    for (const r of results) expect(r).toEqual({ name: r.name, f1: expect.any(Number), rendered: true });
    for (const r of results) expect({ name: r.name, ok: r.f1 >= 0.95 }).toEqual({ name: r.name, ok: true });
  }, 120_000);

  it('render_js false: every fixture comes back as its shell', async () => {
    for (const [name, f] of Object.entries(RENDERING_FIXTURES)) {
      const { text, meta } = await scrape({ url: `${site.url}${f.path}`, render_js: false });
      expect({ name, rendered: meta.rendered, shell: text.includes(f.shell.replace('…', '')), f1Low: wordF1(text, f.expected) < 0.3 }).toEqual({ name, rendered: false, shell: true, f1Low: true });
    }
  }, 60_000);

  it('render_js "auto" leaves static pages static: same text as render_js false, meta.rendered false', async () => {
    for (const p of corpusPages) {
      const url = `${site.url}/corpus/${p.folder}/page.html`;
      const [auto, never] = await Promise.all([scrape({ url }), scrape({ url, render_js: false })]);
      expect({ page: p.folder, rendered: auto.meta.rendered, same: auto.text === never.text }).toEqual({ page: p.folder, rendered: false, same: true });
    }
  }, 60_000);

  it('a page that never stops loading ends at its budget with a clear E008', async () => {
    const started = Date.now();
    const answer = await submit({ url: `${site.url}/never-loads`, render_js: true, timeout: 3000 });
    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe('E008: the page did not finish loading within its 3 s budget');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

/** Chromium's main process started by `pid` (Playwright starts it in a process group of its own). */
function chromiumOf(pid: number): Array<{ pid: number }> {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === pid && fs.readlinkSync(`/proc/${e}/exe`).endsWith('/chromium') ? [{ pid: Number(e) }] : [];
      } catch {
        return [];
      }
    });
}

/** `pid` and every process below it. */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const e of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      parents.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) if (!tree.has(child) && tree.has(parent)) grew = tree.add(child) && true;
  }
  return [...tree];
}

describe('Chromium killed mid-render', () => {
  it('the request still completes (the render job runs again in a fresh Chromium) and the worker lives', async () => {
    const path = RENDERING_FIXTURES.timer.path;
    const hitsBefore = site.hits[path] ?? 0;
    const pending = scrape({ url: `${site.url}${path}`, render_js: true });
    // The page is loading in Chromium (its 1.5 s timer is running): kill Chromium's main process.
    await waitFor(() => site.hits[path] ?? 0, (n) => n > hitsBefore, 30_000);
    const chromium = chromiumOf(browserWorker.child.pid!);
    expect(chromium).toHaveLength(1);
    process.kill(chromium[0].pid, 'SIGKILL');
    const { text, meta } = await pending;
    expect(meta.rendered).toBe(true);
    expect(wordF1(text, RENDERING_FIXTURES.timer.expected)).toBeGreaterThanOrEqual(0.95);
    expect(site.hits[path]).toBeGreaterThanOrEqual(hitsBefore + 2);
    expect(browserWorker.child.exitCode).toBeNull();
    expect(browserWorker.output()).toMatch(/Chromium exited unexpectedly/);
    // And it renders the next page as usual.
    expect((await scrape({ url: `${site.url}${RENDERING_FIXTURES.appShell.path}`, render_js: true })).meta.rendered).toBe(true);
  }, 90_000);
});

describe('a page answering after 25 s', () => {
  it('answers 202 inside the window, then completes on the status endpoint and the webhook (static and rendered)', async () => {
    const receiver = await startWebhookReceiver([200]);
    try {
      const started = Date.now();
      const [plain, rendered] = await Promise.all([
        submit({ url: `${site.url}/slow-25s`, render_js: false, webhook: receiver.url }),
        submit({ url: `${site.url}/slow-25s`, render_js: true, webhook: receiver.url }),
      ]);
      expect(Date.now() - started).toBeLessThan(23_000);
      for (const answer of [plain, rendered]) expect([answer.status, answer.body.status]).toEqual([202, 'processing']);
      for (const answer of [plain, rendered]) {
        const done = await waitFor(() => statusOf(answer.body.request_id), (b) => b.status !== 'processing' && b.status !== 'received', 40_000);
        expect([done.status, done.content?.text]).toEqual(['completed', expect.stringContaining('twenty-five seconds')]);
      }
      const [plainDone, renderedDone] = await Promise.all([plain, rendered].map((a) => statusOf(a.body.request_id)));
      expect([plainDone.content.meta.rendered, renderedDone.content.meta.rendered]).toEqual([false, true]);
      await waitFor(() => receiver.deliveries.length, (n) => n >= 2, 20_000);
      const hooks = receiver.deliveries.map((d) => JSON.parse(d.rawBody) as Body);
      expect(hooks.map((h) => [h.request_id, h.status]).sort()).toEqual([plain, rendered].map((a) => [a.body.request_id, 'completed']).sort());
    } finally {
      await receiver.close();
    }
  }, 90_000);
});

describe('operations', () => {
  it('serves /readyz and /metrics: pages by outcome, launches by reason, Chromium memory, the render queue', async () => {
    const base = `http://127.0.0.1:${healthPort}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const samples = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
    expect(sumOf(samples, 'gleaner_browser_pages_total', { outcome: 'rendered' })).toBeGreaterThanOrEqual(Object.keys(RENDERING_FIXTURES).length);
    expect(sumOf(samples, 'gleaner_browser_pages_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_browser_pages_total', { outcome: 'crashed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_browser_launches_total', { reason: 'crash' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(samples, 'gleaner_browser_memory_bytes', {})).toBeGreaterThan(10 * 1024 * 1024);
    expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'render', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(samples.some((s) => s.name === 'gleaner_queue_jobs' && s.labels.queue === 'render')).toBe(true);
  });

  it('stops in order on SIGTERM: exit 0, Chromium and its processes gone', async () => {
    const pid = browserWorker.child.pid!;
    const chromium = chromiumOf(pid);
    expect(chromium.length).toBe(1);
    const tree = descendantsOf(chromium[0].pid);
    expect(tree.length).toBeGreaterThan(1);
    const exited = new Promise<number | null>((resolve) => browserWorker.child.once('exit', (code) => resolve(code)));
    browserWorker.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(tree.filter((p) => fs.existsSync(`/proc/${p}`) && !/\) Z /.test(fs.readFileSync(`/proc/${p}/stat`, 'utf8')))).toEqual([]);
  }, 30_000);
});
