import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { normalizeUrl } from '@gleaner/site-crawl';
import { CrawlApi, type CrawlAnswer, type CrawlPage } from './support/crawl-api.js';
import { DOC_PAGES, DOC_SECTIONS, startCrawlSite, type CrawlSite } from './support/crawl-site.js';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { DisposableRedis } from './support/redis-server.js';
import { createAccountWithKey } from './support/test-stores.js';
import { createStores } from '@gleaner/store';
import { Redis } from 'ioredis';

/**
 * Crawls that always finish (issue 40): the gateway and the scraper-worker as real processes on a
 * Redis of this test's own, a site whose every page takes 60 ms. Mid-crawl the worker is killed
 * with SIGKILL, Redis is killed and restarted (AOF), the gateway is killed and restarted; each
 * crawl still completes, with every page listed once and no page read before a crash fetched
 * again. And one account's big crawl leaves another account's scrape its share.
 */
const prefix = 'crawl-resilience';
const DOCS = 1 + DOC_SECTIONS + 2 * DOC_SECTIONS * DOC_PAGES; // /docs/, sections, pages and their details
let redis: DisposableRedis;
let env: Record<string, string>;
let gateway: GatewayProcess;
let worker: ServiceProcess;
let site: CrawlSite;
let api: CrawlApi;
let other: CrawlApi;
let client: Redis;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const startWorker = async () => {
  const w = startService('scraper-worker', env);
  await w.waitFor(/ready/);
  return w;
};

/** The crawl's status, read through an outage (the gateway answers 503 while Redis is away). */
async function statusThrough(id: string): Promise<CrawlAnswer | null> {
  try {
    return await api.status('crawl', id);
  } catch {
    return null;
  }
}

async function whenCompleted(id: string, atLeast: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(100)) {
    const s = await statusThrough(id);
    if (s && s.counts.completed >= atLeast) return;
  }
  throw new Error(`crawl ${id} did not reach ${atLeast} pages: ${JSON.stringify((await statusThrough(id))?.counts)}\n${worker.output().slice(-4000)}`);
}

async function ended(id: string, timeoutMs = 90_000): Promise<{ final: CrawlAnswer; pages: CrawlPage[] }> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(250)) {
    const s = await statusThrough(id);
    if (s && s.status !== 'processing') return api.finish('crawl', id);
  }
  throw new Error(`crawl ${id} did not end:\n${worker.output().slice(-3000)}`);
}

/** Pages requested from the site after `since`, by path. */
const requestedAfter = (since: number) => new Set(site.requests.filter((r) => r.at > since).map((r) => r.path));

function expectEveryDocPageOnce(pages: CrawlPage[]): void {
  const read = pages.filter((p) => p.status === 'completed').map((p) => normalizeUrl(p.url)!);
  expect(new Set(read).size).toBe(read.length);
  expect(read).toHaveLength(DOCS);
}

beforeAll(async () => {
  redis = await DisposableRedis.start();
  site = await startCrawlSite({ pageDelayMs: 60 });
  env = serviceEnv(prefix, {
    REDIS_URL: redis.url,
    CRAWL_SLICE_MS: '3000',
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    SYNC_WINDOW_MS: '20000',
  });
  // Fair sharing is under test: the default per-account share (tests/support/env.ts lifts it).
  delete env.ACCOUNT_MAX_CONCURRENT_JOBS;
  [gateway, worker] = await Promise.all([startGatewayProcess(env), startWorker()]);
  client = new Redis(redis.url, { maxRetriesPerRequest: null });
  const stores = createStores(client, prefix, env.GLEANER_SECRET);
  const a = await createAccountWithKey(stores, 'big-crawler', { ratePerMinute: 100_000 });
  const b = await createAccountWithKey(stores, 'small-scraper', { ratePerMinute: 100_000 });
  api = new CrawlApi(gateway.url, a.apiKey);
  other = new CrawlApi(gateway.url, b.apiKey);
}, 120_000);

afterAll(async () => {
  await worker?.kill('SIGKILL');
  await gateway?.process.kill('SIGKILL');
  client?.disconnect();
  await redis?.dispose();
  await site?.close();
});

describe('a crawl survives', () => {
  it('its worker killed with SIGKILL: another worker resumes it without fetching done pages again', async () => {
    const id = await api.start('crawl', { url: `${site.url}/docs/`, include_paths: ['^/docs'], limit: 1_000, sitemap: 'skip', max_concurrency: 4, render_js: false, timeout: 2_000 });
    await whenCompleted(id, 30);
    const { pages: before } = await api.finish('crawl', id);
    const doneBefore = new Set(before.filter((p) => p.status === 'completed').map((p) => new URL(p.url).pathname));
    await worker.kill('SIGKILL');
    const killedAt = Date.now();
    worker = await startWorker();
    const { final, pages } = await ended(id);
    expect(final.status).toBe('completed');
    expect(final.reason).toBe('every page in scope was crawled');
    expectEveryDocPageOnce(pages);
    const again = [...requestedAfter(killedAt)].filter((p) => doneBefore.has(p));
    expect(again).toEqual([]);
    // Only the pages in flight at the kill (max_concurrency) may have been requested twice.
    const twice = [...site.hits].filter(([path, n]) => path.startsWith('/docs') && n > 1);
    expect(twice.length).toBeLessThanOrEqual(4);
  }, 120_000);

  it('Redis killed and restarted mid-crawl, and the gateway killed and restarted', async () => {
    const id = await api.start('crawl', { url: `${site.url}/docs/`, include_paths: ['^/docs'], limit: 1_000, sitemap: 'skip', max_concurrency: 4, render_js: false, timeout: 2_000 });
    await whenCompleted(id, 30);
    await redis.stop();
    await sleep(1_500);
    await redis.resume();
    await gateway.process.kill('SIGKILL');
    gateway = await startGatewayProcess(env);
    api = new CrawlApi(gateway.url, api.apiKey);
    other = new CrawlApi(gateway.url, other.apiKey);
    const { final, pages } = await ended(id);
    expect(final.status).toBe('completed');
    expectEveryDocPageOnce(pages);
    const c = final.counts;
    expect(c.completed).toBe(DOCS);
  }, 120_000);
});

it("one account's big crawl leaves another account's single scrape its share", async () => {
  const big = await api.start('crawl', { url: `${site.url}/docs/`, limit: 1_000, max_concurrency: 20, render_js: false, timeout: 2_000 });
  await whenCompleted(big, 10);
  const started = Date.now();
  const scrape = await other.call('POST', '/web-scrapper/', { url: `${site.url}/docs/s0/p0`, render_js: false });
  const took = Date.now() - started;
  expect(scrape.status).toBe(200);
  expect(took).toBeLessThan(5_000);
  await api.call('DELETE', `/web-scrapper/crawl/${big}`);
}, 60_000);
