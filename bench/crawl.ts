/**
 * Crawl throughput and Redis memory (issue 40; prints figures, not a test).
 *   site     the local site of tests/support/crawl-site.ts with BENCH_SECTIONS sections of /docs/
 *            (41 pages each: a section page, 20 pages, 20 detail pages), every page small; both
 *            sides crawl /docs/ and what it links to under /docs (robots.txt obeyed by both)
 *   bare     Crawlee's CheerioCrawler in a process of its own: fetch, parse with cheerio, read the
 *            title, enqueue the links under /docs (same host; each page's spellings made one
 *            request with our URL normalisation, so both sides read the same pages), at
 *            BENCH_CONCURRENCY (min = max, so its autoscaling does not ramp up slowly), in-memory
 *            storage, no retries
 *   gleaner  the gateway and the scraper-worker as real processes on a Redis of the bench's own
 *            (`redis-server` on a free port): one crawl of the same pages at max_concurrency =
 *            BENCH_CONCURRENCY, output markdown; per page it also normalises and deduplicates
 *            URLs in Redis, throttles per host, extracts the main text and renders markdown in
 *            its threads, and stores each result in Redis; timed from the submit to the end
 * Sides run in rounds (bare, gleaner, bare, …) so that load from others weighs on both.
 * Then Redis memory per 10,000 URLs: a crawl of a site whose sitemaps list BENCH_MEMORY_URLS
 * URLs (100,000), with the cap at that many, read as used_memory at its peak minus before.
 * Target: gleaner >= 1.0x the bare script's pages per minute.
 * Run: pnpm bench:crawl   env: BENCH_SECTIONS (25), BENCH_CONCURRENCY (8), BENCH_ROUNDS (2), BENCH_MEMORY_URLS (100000)
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createStores } from '@gleaner/store';

const SECTIONS = Number(process.env.BENCH_SECTIONS ?? 25);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MEMORY_URLS = Number(process.env.BENCH_MEMORY_URLS ?? 100_000);
const SECRET = 'bench-secret-0123456789abcdef';

/** The bare script (`--bare <start url>`): prints the pages it read and how long it took. */
async function bareCrawl(start: string): Promise<void> {
  const { CheerioCrawler, Configuration } = await import('@crawlee/cheerio');
  const { normalizeUrl } = await import('@gleaner/site-crawl');
  let pages = 0;
  const crawler = new CheerioCrawler(
    {
      minConcurrency: CONCURRENCY,
      maxConcurrency: CONCURRENCY,
      maxRequestRetries: 0,
      respectRobotsTxtFile: true,
      requestHandler: async ({ $, enqueueLinks }) => {
        pages++;
        $('title').text();
        // The same pages as ours: a page's spellings (trailing slash, index.html, utm_*) are one request.
        await enqueueLinks({
          strategy: 'same-hostname',
          regexps: [/^https?:\/\/[^/]+\/docs/],
          transformRequestFunction: (request) => ({ ...request, uniqueKey: normalizeUrl(request.url) ?? request.url }),
        });
      },
    },
    new Configuration({ persistStorage: false, logLevel: 0 as never }),
  );
  const started = Date.now();
  await crawler.run([start]);
  console.log(`bare ${pages} pages in ${Date.now() - started} ms`);
}

if (process.argv[2] === '--bare') {
  await bareCrawl(process.argv[3]);
  process.exit(0);
}

const { startCrawlSite } = await import('../tests/support/crawl-site.js');
const { DisposableRedis } = await import('../tests/support/redis-server.js');
const { startProcess, startService } = await import('../tests/support/processes.js');
const { startGatewayProcess } = await import('../tests/support/gateway-process.js');
const { CrawlApi } = await import('../tests/support/crawl-api.js');

const redis = await DisposableRedis.start();
const site = await startCrawlSite({ sections: SECTIONS, bulkUrls: MEMORY_URLS });
const env = {
  REDIS_URL: redis.url,
  GLEANER_REDIS_PREFIX: 'bench-crawl',
  GLEANER_SECRET: SECRET,
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  CRAWL_CONCURRENCY: '1',
  CRAWL_MAX_URLS: String(Math.max(100_000, MEMORY_URLS)),
  CRAWL_MAX_LIMIT: '1000000',
};
const worker = startService('scraper-worker', env);
const [gateway] = await Promise.all([startGatewayProcess(env), worker.waitFor(/ready/)]);
const reader = new Redis(redis.url);
const stores = createStores(reader, 'bench-crawl', SECRET);
const account = await stores.accounts.createAccount('bench');
await stores.accounts.setRateLimit(account.id, 1_000_000);
const { apiKey } = await stores.accounts.createApiKey(account.id);
const api = new CrawlApi(gateway.url, apiKey);
const start = `${site.url}/docs/`;
const expected = 1 + SECTIONS * 41;

async function gleanerRound(): Promise<{ pages: number; ms: number }> {
  const started = Date.now();
  const id = await api.start('crawl', { url: start, include_paths: ['^/docs'], sitemap: 'skip', limit: 1_000_000, max_concurrency: CONCURRENCY, output_type: 'markdown', render_js: false });
  let status = await api.status('crawl', id);
  // Polled every 200 ms (the gateway's status reads cost the host CPU the bare side does not spend).
  while (status.status === 'processing') {
    await new Promise((r) => setTimeout(r, 200));
    status = await api.status('crawl', id);
  }
  return { pages: status.counts.completed, ms: Date.now() - started };
}

async function bareRound(): Promise<{ pages: number; ms: number }> {
  const bare = startProcess(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--bare', start], {});
  const line = await bare.waitFor(/bare (\d+) pages in (\d+) ms/, 600_000);
  const [, pages, ms] = /bare (\d+) pages in (\d+) ms/.exec(line)!;
  return { pages: Number(pages), ms: Number(ms) };
}

const perMinute = (r: { pages: number; ms: number }) => (r.pages / r.ms) * 60_000;
const ratios: number[] = [];
try {
  console.log(`crawl of ${expected} pages at concurrency ${CONCURRENCY}, ${ROUNDS} rounds, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (let round = 1; round <= ROUNDS; round++) {
    const bare = await bareRound();
    const ours = await gleanerRound();
    ratios.push(perMinute(ours) / perMinute(bare));
    console.log(
      `round ${round}: bare CheerioCrawler ${bare.pages} pages in ${(bare.ms / 1000).toFixed(1)} s = ${Math.round(perMinute(bare))} pages/min; ` +
        `gleaner ${ours.pages} pages in ${(ours.ms / 1000).toFixed(1)} s = ${Math.round(perMinute(ours))} pages/min (text + markdown); ${(perMinute(ours) / perMinute(bare)).toFixed(2)}x; load ${os.loadavg()[0].toFixed(2)}`,
    );
  }
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  console.log(`median ${median.toFixed(2)}x (target >= 1.0x): ${median >= 1 ? 'PASS' : 'FAIL'}`);

  // Redis memory per 10,000 URLs: a crawl that discovers MEMORY_URLS from the sitemaps and reads one page.
  const before = Number(/used_memory:(\d+)/.exec(await reader.info('memory'))![1]);
  const id = await api.start('crawl', { url: `${site.url}/`, limit: 1, max_concurrency: 1, render_js: false });
  let peak = before;
  let status = await api.status('crawl', id);
  while (status.status === 'processing') {
    peak = Math.max(peak, Number(/used_memory:(\d+)/.exec(await reader.info('memory'))![1]));
    await new Promise((r) => setTimeout(r, 50));
    status = await api.status('crawl', id);
  }
  const after = Number(/used_memory:(\d+)/.exec(await reader.info('memory'))![1]);
  const urls = status.counts.discovered;
  console.log(`Redis memory: ${urls} URLs discovered, ${((peak - before) / 1048576).toFixed(1)} MB at the peak = ${(((peak - before) / urls) * 10_000 / 1048576).toFixed(2)} MB per 10,000 URLs; ${((after - before) / 1048576).toFixed(2)} MB left once the crawl ended`);
} finally {
  await worker.kill('SIGTERM');
  await gateway.process.kill('SIGTERM');
  reader.disconnect();
  await redis.dispose();
  await site.close();
}
