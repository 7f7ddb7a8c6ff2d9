import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createLogger } from '@gleaner/platform';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { CrawlApi } from './support/crawl-api.js';
import { startCrawlSite, type CrawlSite } from './support/crawl-site.js';
import { serviceEnv } from './support/env.js';
import { reportFigures } from './support/figures.js';
import { GatewayHarness } from './support/gateway.js';
import { DisposableRedis } from './support/redis-server.js';

/**
 * A crawl is bounded however large the site (issue 40): a site whose sitemaps list 100,000 pages,
 * crawled with a cap of 10,000 stored URLs and 400 KB of stored results, on a Redis of this test's
 * own so that its memory can be read. The crawl stops discovering at the cap and says so, Redis
 * holds about the cap's worth of URLs (measured, and reported per 10,000 URLs), the working keys
 * go when the crawl ends, and a crawl whose results reach the byte cap ends there.
 */
const URL_CAP = 10_000;
const BYTES_CAP = 400_000;
let redis: DisposableRedis;
let reader: Redis;
let h: GatewayHarness;
let worker: RunningService;
let site: CrawlSite;
let api: CrawlApi;

const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await reader.info('memory'))![1]);

beforeAll(async () => {
  redis = await DisposableRedis.start();
  reader = new Redis(redis.url);
  site = await startCrawlSite({ bulkUrls: 100_000 });
  const env = serviceEnv('crawl-bounds', { REDIS_URL: redis.url, CRAWL_MAX_URLS: String(URL_CAP), CRAWL_MAX_STORED_BYTES: String(BYTES_CAP) });
  h = await GatewayHarness.start('crawl-bounds', env);
  worker = await startScraperWorker(loadScraperWorkerConfig(env), createLogger('crawl-bounds', 'error'));
  const account = await h.account('bulk');
  await h.stores.accounts.setRateLimit(account.accountId, 100_000);
  api = new CrawlApi(h.url, account.apiKey);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await h?.stop();
  reader?.disconnect();
  await redis?.dispose();
  await site?.close();
});

describe('a site of 100,000 URLs', () => {
  it('is crawled within the cap of stored URLs, Redis memory bounded by it, and freed at the end', async () => {
    const before = await usedMemory();
    const id = await api.start('crawl', { url: `${site.url}/`, limit: 40, max_concurrency: 8, render_js: false });
    let peak = before;
    let status = await api.status('crawl', id);
    while (status.status === 'processing') {
      peak = Math.max(peak, await usedMemory());
      await new Promise((r) => setTimeout(r, 100));
      status = await api.status('crawl', id);
    }
    const after = await usedMemory();
    expect(status.status).toBe('completed');
    expect(status.reason).toBe('the limit of 40 pages was reached');
    expect(status.counts.discovered).toBeLessThanOrEqual(URL_CAP + 50); // + the URLs fetched pages answered for
    expect(status.counts.discovered).toBeGreaterThanOrEqual(URL_CAP - 50);
    expect(status.counts.skipped_by.url_cap).toBeGreaterThan(0);
    expect(status.counts.completed).toBe(40);
    const perTenThousand = ((peak - before) / status.counts.discovered) * 10_000;
    reportFigures(`crawl of a 100,000-URL site capped at ${URL_CAP} URLs: Redis used_memory ${((peak - before) / 1048576).toFixed(1)} MB at its peak (${(perTenThousand / 1048576).toFixed(2)} MB per 10,000 URLs), ${((after - before) / 1048576).toFixed(2)} MB once ended`);
    // The cap's worth of URLs (keys, frontier entries) and no more: a site ten times larger costs the same.
    expect(peak - before).toBeLessThan(12 * 1024 * 1024);
    // Ended: the frontier, the seen URLs and the in-flight pages are gone; counters and results stay.
    expect(after - before).toBeLessThan(1.5 * 1024 * 1024);
    const keys = await reader.keys('crawl-bounds:crawl-*');
    expect(keys.map((k) => k.split(':')[1]).sort()).toEqual(['crawl-pages']);
  }, 120_000);

  it('ends a crawl whose results reach the cap of stored bytes, saying so', async () => {
    const id = await api.start('crawl', { url: `${site.url}/`, limit: 1_000, sitemap: 'only', output_type: 'markdown', render_js: false });
    const { final, pages } = await api.finish('crawl', id, 60_000);
    expect(final.status).toBe('completed');
    expect(final.reason).toBe('the results reached the cap of 391 KB stored for a crawl; it stopped there');
    const stored = pages.reduce((n, p) => n + JSON.stringify(p).length, 0);
    expect(stored).toBeLessThanOrEqual(BYTES_CAP);
    expect(stored).toBeGreaterThan(BYTES_CAP * 0.8);
    expect(final.counts.completed).toBe(pages.filter((p) => p.status === 'completed').length);
  }, 90_000);
});
