import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, newRequestId } from '@gleaner/platform';
import { verifyWebhookSignature } from '@gleaner/safe-fetch';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from '@gleaner/webhook-dispatcher';
import { normalizeUrl } from '@gleaner/site-crawl';
import { CrawlApi, type CrawlPage } from './support/crawl-api.js';
import { BLOG_POSTS, DOC_PAGES, DOC_SECTIONS, ORPHANS, PRIVATE_PAGES, SLOW_PAGES, startCrawlSite, type CrawlSite } from './support/crawl-site.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness } from './support/gateway.js';
import { deleteKeysWithPrefix, replyBufferShrunk, testPrefix, watchReplyBufferShrinking } from './support/redis.js';
import { startWebhookReceiver, waitFor } from './support/webhook-receiver.js';
import { gleanerCli } from './support/cli.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Crawls (issue 40) end to end on the local site of tests/support/crawl-site.ts: the gateway and
 * the scraper-worker in this process on real Redis. What a crawl must get right from the start:
 * every page once however its links spell it, robots.txt obeyed, exact limits, depth and path
 * filters, redirects and canonical URLs recorded, 429s waited out, a hanging page failed.
 */
const prefix = testPrefix('crawl');
let h: GatewayHarness;
let worker: RunningService;
let dispatcher: RunningService;
/** Renders the client-rendered page (started at once, waited for by the test that needs it). */
let browserWorker: ServiceProcess;
let site: CrawlSite;
let api: CrawlApi;
let accountId: string;

/** Pages the crawl read (`completed`), by their normalised URL. */
const normalized = (pages: CrawlPage[], status = 'completed') => pages.filter((p) => p.status === status).map((p) => normalizeUrl(p.url)!);
const pathOf = (url: string) => new URL(url).pathname;

beforeAll(async () => {
  watchReplyBufferShrinking();
  site = await startCrawlSite({ slowMs: 600 });
  const env = serviceEnv(prefix, { CRAWL_SLICE_MS: '4000', SCRAPER_EXTRACT_THREADS: '2', CRAWL_ACCOUNT_MAX_RUNNING: '3', WEBHOOK_BACKOFF_BASE_MS: '200', CRAWL_WEBHOOK_BATCH_PAGES: '4', MAP_DEADLINE_MS: '5000' });
  browserWorker = startService('browser-worker', { ...env, BROWSER_CONCURRENCY: '1' });
  h = await GatewayHarness.start(prefix, env);
  worker = await startScraperWorker(loadScraperWorkerConfig(env), createLogger('crawl-test', 'error'));
  dispatcher = await startWebhookDispatcher(loadWebhookDispatcherConfig(env), createLogger('crawl-test', 'error'));
  const account = await h.account('crawler');
  accountId = account.accountId;
  await h.stores.accounts.setRateLimit(account.accountId, 100_000);
  api = new CrawlApi(h.url, account.apiKey);
});

afterAll(async () => {
  await worker?.stop();
  await dispatcher?.stop();
  await browserWorker?.kill();
  await h?.stop();
  await site?.close();
  await deleteKeysWithPrefix(prefix);
  await replyBufferShrunk();
});

describe('a crawl of the whole site', () => {
  let pages: CrawlPage[];
  let final: Awaited<ReturnType<CrawlApi['finish']>>['final'];
  let reads: number;
  let id: string;

  beforeAll(async () => {
    id = await api.start('crawl', { url: `${site.url}/`, limit: 1_000, output_type: 'markdown', max_concurrency: 8, timeout: 2_000, render_js: false });
    ({ final, pages, reads } = await api.finish('crawl', id, 90_000));
  }, 100_000);

  it('ends completed, saying why, with every result read through the cursor', () => {
    expect(final.status).toBe('completed');
    expect(final.reason).toBe('every page in scope was crawled');
    expect(final.next).toBeNull();
    expect(reads).toBeGreaterThan(3); // 100 results an answer
    expect(pages.length).toBe(final.counts.completed + final.counts.failed + pages.filter((p) => p.status === 'skipped').length);
  });

  it('answers at most limit results a read, or with limit=0 the state and counts alone', async () => {
    const five = await api.call('GET', `/web-scrapper/crawl/${id}?cursor=3&limit=5`);
    expect([five.body.pages.map((p: CrawlPage) => p.url), five.body.next]).toEqual([pages.slice(3, 8).map((p) => p.url), '8']);
    const counts = await api.call('GET', `/web-scrapper/crawl/${id}?limit=0`);
    expect([counts.body.pages, counts.body.next, counts.body.counts]).toEqual([[], '0', final.counts]);
    const refused = await api.call('GET', `/web-scrapper/crawl/${id}?limit=101`);
    expect([refused.status, refused.body.error]).toEqual([400, 'E009: limit must be a whole number from 0 to 100']);
  });

  it('reads every page in scope once, whatever spelling its links use', () => {
    const read = normalized(pages);
    expect(new Set(read).size).toBe(read.length);
    const docs = read.filter((u) => /\/docs\/s\d+\/p\d+$/.test(u));
    const details = read.filter((u) => /\/detail$/.test(u));
    expect(docs).toHaveLength(DOC_SECTIONS * DOC_PAGES);
    expect(details).toHaveLength(DOC_SECTIONS * DOC_PAGES);
    expect(read.filter((u) => /\/orphan\/\d+$/.test(u))).toHaveLength(ORPHANS); // only the sitemaps list them
    expect(read.filter((u) => /\/slow\/\d+$/.test(u))).toHaveLength(SLOW_PAGES);
    // The site served each page once: no spelling of a doc page was requested twice.
    for (let s = 0; s < DOC_SECTIONS; s++) {
      for (let p = 0; p < DOC_PAGES; p++) {
        const path = `/docs/s${s}/p${p}`;
        expect(site.pageHits(path) + site.pageHits(`${path}/`) + site.pageHits(`${path}/index.html`)).toBe(1);
      }
    }
    for (const [raw, n] of site.hits) if (!raw.startsWith('/busy')) expect([raw, n]).toEqual([raw, 1]);
  });

  it('keeps one copy of a post reached by redirect, by canonical alias and by two query orders', () => {
    const posts = pages.filter((p) => p.status === 'completed' && /^Post \d+$/.test(String(p.content?.meta.title)));
    const titles = posts.map((p) => p.content!.meta.title);
    expect(new Set(titles).size).toBe(titles.length);
    expect(titles).toHaveLength(BLOG_POSTS);
    const duplicates = pages.filter((p) => p.status === 'skipped' && /already (crawled|fetched)/.test(p.reason ?? ''));
    // /old/0 and /old/1 redirect to posts, /alias/2 and /alias/3 name them as canonical: either the
    // alias or the post is listed, never both.
    expect(duplicates.length + posts.filter((p) => /\/(old|alias)\//.test(p.url)).length).toBe(4);
    expect(final.counts.skipped_by.duplicate).toBeGreaterThanOrEqual(duplicates.length);
  });

  it('records final URLs after redirects and canonical URLs', () => {
    const redirected = pages.find((p) => p.status === 'completed' && pathOf(p.url).startsWith('/old/'));
    const viaRedirect = redirected ?? pages.find((p) => p.status === 'completed' && pathOf(p.url) === '/blog/post-0');
    expect(viaRedirect?.content?.meta.canonical_url).toMatch(/\/blog\/post-\d\?a=1&b=2$/);
    if (redirected) expect(redirected.content!.meta.final_url).toMatch(/\/blog\/post-\d\?a=1&b=2$/);
  });

  it('obeys robots.txt, names itself, and lists what robots.txt refused with the reason', () => {
    expect([...site.hits.keys()].filter((p) => p.startsWith('/private/'))).toEqual([]);
    const refused = pages.filter((p) => p.status === 'skipped' && pathOf(p.url).startsWith('/private/'));
    expect(refused).toHaveLength(PRIVATE_PAGES);
    expect(refused[0].reason).toMatch(/robots\.txt disallows it/);
    expect(final.counts.skipped_by.robots).toBe(PRIVATE_PAGES);
    expect(new Set(site.requests.map((r) => r.userAgent))).toEqual(new Set([expect.stringContaining('GleanerBot/1.0')]));
  });

  it('skips files and other hosts without a request, and lists a page that is not HTML', () => {
    expect(site.pageHits('/files/report.pdf')).toBe(0);
    expect(final.counts.skipped_by.file).toBeGreaterThanOrEqual(1);
    expect(final.counts.skipped_by.other_host).toBeGreaterThanOrEqual(1);
  });

  it('waits out a 429 with its Retry-After, fails a page that never answers, a 404 and a redirect loop', () => {
    const busy = site.requests.filter((r) => r.path === '/busy');
    expect(busy.map((r) => r.status)).toEqual([429, 429, 200]);
    expect(busy[1].at - busy[0].at).toBeGreaterThanOrEqual(950);
    expect(busy[2].at - busy[1].at).toBeGreaterThanOrEqual(950);
    expect(pages.find((p) => pathOf(p.url) === '/busy')?.status).toBe('completed');
    const failed = Object.fromEntries(pages.filter((p) => p.status === 'failed').map((p) => [pathOf(p.url), p.error]));
    expect(failed['/hang']).toMatch(/^E008: target did not answer within 2 s/);
    expect(failed['/broken']).toBe('E008: target answered HTTP 404');
    expect(failed['/loop']).toMatch(/^E008: .*redirects/);
  });

  it('gives each page as a single scrape gives it, markdown included, with its depth', () => {
    const page = pages.find((p) => pathOf(p.url) === '/docs/s1/p3')!;
    expect(page.status).toBe('completed');
    expect(page.content!.markdown).toContain('# Section 1 page 3');
    expect(page.content!.text).toContain('page 3 of section 1');
    expect(page.content!.links.length).toBeGreaterThan(5);
    expect(page.depth).toBeGreaterThanOrEqual(0);
    expect(pages.find((p) => pathOf(p.url) === '/')?.depth).toBe(0);
  });
});

describe('limits and filters', () => {
  it('never fetches more pages than the limit, at any concurrency', async () => {
    for (const limit of [1, 7, 15]) {
      const before = site.requests.length;
      const id = await api.start('crawl', { url: `${site.url}/docs/`, limit, max_concurrency: 10, sitemap: 'skip', render_js: false });
      const { final, pages } = await api.finish('crawl', id);
      expect(final.status).toBe('completed');
      expect(final.reason).toBe(`the limit of ${limit} pages was reached`);
      expect(final.counts.completed + final.counts.failed).toBe(limit);
      expect(pages.filter((p) => p.status !== 'skipped')).toHaveLength(limit);
      // Pages answered (a redirect's hop is a request, not a page; skipped duplicates are not counted).
      const answered = site.requests.slice(before).filter((r) => r.path !== '/robots.txt' && (r.status < 300 || r.status >= 400));
      const duplicates = pages.filter((p) => p.status === 'skipped' && /already crawled/.test(p.reason ?? '')).length;
      expect(answered.length).toBeLessThanOrEqual(limit + duplicates);
    }
  });

  it('follows links only max_depth hops and only paths the patterns allow', async () => {
    const deep = await api.start('crawl', { url: `${site.url}/docs/`, max_depth: 2, include_paths: ['^/docs/s[0-2]'], exclude_paths: ['/detail$'], sitemap: 'skip', limit: 500, render_js: false });
    const { final, pages } = await api.finish('crawl', deep);
    expect(final.status).toBe('completed');
    const read = pages.filter((p) => p.status === 'completed');
    // The start page, three sections (depth 1), their 60 pages (depth 2); never a detail page or section 3.
    expect(read.map((p) => pathOf(p.url)).sort()).toEqual(
      ['/docs/', ...[0, 1, 2].flatMap((s) => [`/docs/s${s}/`, ...Array.from({ length: DOC_PAGES }, (_, p) => `/docs/s${s}/p${p}`)])].sort(),
    );
    expect(Math.max(...read.map((p) => p.depth!))).toBe(2);
    expect(final.counts.skipped_by.not_included_path).toBeGreaterThan(0);
    expect(final.counts.skipped_by.excluded_path).toBe(60);
    // One hop: the sections, and none of their pages.
    const shallow = await api.finish('crawl', await api.start('crawl', { url: `${site.url}/docs/`, max_depth: 1, include_paths: ['^/docs/s[0-2]'], sitemap: 'skip', render_js: false }));
    expect(shallow.pages.filter((p) => p.status === 'completed').map((p) => pathOf(p.url)).sort()).toEqual(['/docs/', '/docs/s0/', '/docs/s1/', '/docs/s2/']);
    expect(shallow.final.counts.skipped_by.depth).toBe(60);
  });

  it('reads only the sitemaps with sitemap: only', async () => {
    const id = await api.start('crawl', { url: `${site.url}/`, sitemap: 'only', limit: 500, render_js: false });
    const { final, pages } = await api.finish('crawl', id);
    expect(final.status).toBe('completed');
    const read = new Set(normalized(pages).map(pathOf));
    expect(read.size).toBe(1 + ORPHANS + DOC_SECTIONS + BLOG_POSTS);
    expect(read.has('/docs/s0/p0')).toBe(true);
    expect(read.has('/docs/s0/p1')).toBe(false);
  });
});

describe('cancel, webhooks and politeness', () => {
  it('stops a crawl promptly when cancelled, keeping what it read', async () => {
    const id = await api.start('crawl', { url: `${site.url}/`, include_paths: ['^/slow/'], sitemap: 'skip', max_concurrency: 1, render_js: false });
    await waitFor(() => api.status('crawl', id), (a) => a.counts.completed >= 2, 20_000);
    const started = Date.now();
    const cancel = await api.call('DELETE', `/web-scrapper/crawl/${id}`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    expect(cancel.body.reason).toBe('cancelled by the caller');
    expect(Date.now() - started).toBeLessThan(3_000);
    const requestsAtCancel = site.requests.filter((r) => r.path.startsWith('/slow/')).length;
    const { final, pages } = await api.finish('crawl', id);
    expect(final.status).toBe('cancelled');
    expect(pages.filter((p) => p.status === 'completed').length).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(site.requests.filter((r) => r.path.startsWith('/slow/')).length).toBe(requestsAtCancel);
    // Ended crawls stay as they are.
    expect((await api.call('DELETE', `/web-scrapper/crawl/${id}`)).body.status).toBe('cancelled');
  });

  it('notifies every listed page in signed crawl.page runs, then crawl.completed', async () => {
    const receiver = await startWebhookReceiver([500, 200]);
    try {
      const id = await api.start('crawl', { url: `${site.url}/blog/`, limit: 10, sitemap: 'skip', webhook: receiver.url, render_js: false });
      const { final, pages } = await api.finish('crawl', id);
      // Notices are independent deliveries: a retried run may arrive after the end notice.
      const notifiedPages = (ok: typeof receiver.deliveries) => ok.map((d) => JSON.parse(d.rawBody)).reduce((n, b) => n + (b.pages?.length ?? 0), 0);
      const deliveries = await waitFor(
        () => receiver.deliveries.filter((d) => d.answeredWith === 200),
        (ok) => ok.some((d) => JSON.parse(d.rawBody).type === 'crawl.completed') && notifiedPages(ok) >= pages.length,
        20_000,
      );
      const secret = (await h.stores.accounts.webhookSecret(accountId))!;
      for (const d of receiver.deliveries) expect(verifyWebhookSignature(secret, d.rawBody, d.headers['x-webhook-signature'] as string)).toBe(true);
      const bodies = deliveries.map((d) => JSON.parse(d.rawBody));
      const runs = bodies.filter((b) => b.type === 'crawl.page');
      const notified = runs.flatMap((b) => b.pages.map((p: CrawlPage) => p.url)).sort();
      expect(notified).toEqual(pages.map((p) => p.url).sort());
      for (const run of runs) expect(run.pages.length).toBeLessThanOrEqual(4);
      const ended = bodies.find((b) => b.type === 'crawl.completed');
      expect(ended).toMatchObject({ request_id: id, status: 'completed', counts: { completed: final.counts.completed } });
      // The first attempt answered 500 and was retried under the same delivery id.
      expect(new Set(receiver.deliveries.map((d) => d.headers['x-webhook-delivery'])).size).toBe(receiver.deliveries.length - 1);
    } finally {
      await receiver.close();
    }
  });

  it("delivers a crawl's, batch's and map's end to the account's subscriptions to their families, without the page runs", async () => {
    const receiver = await startWebhookReceiver([200]);
    const subscribed = await api.call('POST', '/account/webhooks', { url: receiver.url, families: ['crawl', 'batch', 'map'] });
    expect(subscribed.status).toBe(201);
    expect(subscribed.body.families).toEqual(['crawl', 'batch', 'map']);
    // Naming no families keeps the single requests' (what receivers written before crawls expect).
    const unnamed = await api.call('POST', '/account/webhooks', { url: `${receiver.url}/other` });
    expect(unnamed.body.families).toEqual(['scrape', 'scrape-v1', 'parse']);
    await api.call('DELETE', `/account/webhooks/${unnamed.body.id}`);
    try {
      const crawlId = await api.start('crawl', { url: `${site.url}/blog/`, limit: 3, sitemap: 'skip', render_js: false });
      const batchId = await api.start('batch', { urls: [`${site.url}/docs/s1/p0`], render_js: false });
      const mapped = await api.call('POST', '/web-scrapper/map', { url: `${site.url}/`, include_paths: ['^/orphan/'], limit: 3 });
      const scraped = await api.call('POST', '/web-scrapper/', { url: `${site.url}/docs/s1/p1` });
      expect([mapped.status, scraped.status]).toEqual([200, 200]);
      const [crawled] = await Promise.all([api.finish('crawl', crawlId), api.finish('batch', batchId)]);
      const bodies = (await waitFor(() => receiver.deliveries.map((d) => JSON.parse(d.rawBody)), (b) => b.length >= 3, 20_000)).sort((a, b) => String(a.type).localeCompare(String(b.type)));
      await new Promise((r) => setTimeout(r, 500)); // nothing more comes: no page runs, no scrape
      expect(receiver.deliveries).toHaveLength(3);
      expect(bodies[0]).toMatchObject({ type: 'batch.completed', request_id: batchId, counts: { completed: 1 } });
      expect(bodies[1]).toMatchObject({ type: 'crawl.completed', request_id: crawlId, status: 'completed', reason: 'the limit of 3 pages was reached', counts: { completed: crawled.final.counts.completed } });
      expect(bodies[2]).toEqual(mapped.body);
      const secret = (await h.stores.accounts.webhookSecret(accountId))!;
      for (const d of receiver.deliveries) expect(verifyWebhookSignature(secret, d.rawBody, d.headers['x-webhook-signature'] as string)).toBe(true);
      // Each delivery is recorded on its request, as for a scrape's subscriptions.
      const crawlRecord = await api.call('GET', `/account/requests/${crawlId}`);
      expect(crawlRecord.body.subscription_delivery_list).toEqual([expect.objectContaining({ subscription_id: subscribed.body.id, status: 'delivered', attempts: 1 })]);
    } finally {
      await api.call('DELETE', `/account/webhooks/${subscribed.body.id}`);
      await receiver.close();
    }
  });

  it("keeps robots.txt's Crawl-delay between requests, whatever max_concurrency says", async () => {
    const polite = await startCrawlSite({ crawlDelaySeconds: 0.3 });
    try {
      const id = await api.start('crawl', { url: `${polite.url}/docs/`, limit: 6, max_concurrency: 6, sitemap: 'skip', render_js: false });
      const { final } = await api.finish('crawl', id);
      expect(final.counts.completed).toBe(6);
      const starts = polite.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.at);
      const gaps = starts.slice(1).map((t, i) => t - starts[i]);
      // Spaced by the delay as a whole; a single gap may shrink by how late the one before it
      // arrived (a loaded host), but two requests never go together.
      expect(starts[starts.length - 1] - starts[0]).toBeGreaterThanOrEqual((starts.length - 1) * 280);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(150);
    } finally {
      await polite.close();
    }
  });
});

describe('map and batch', () => {
  it('maps a site from its sitemaps and links, with titles, without scraping it', async () => {
    const before = site.requests.length;
    const answer = await api.call('POST', '/web-scrapper/map', { url: `${site.url}/` });
    expect(answer.status).toBe(200);
    const links: Array<{ url: string; title?: string }> = answer.body.links;
    const paths = new Set(links.map((l) => pathOf(l.url)));
    expect(paths.has('/orphan/0')).toBe(true); // from the gzip-less sitemap behind the index
    expect(paths.has('/blog/post-7')).toBe(true); // from the gzip sitemap
    expect(paths.has('/docs/s4/')).toBe(true); // from a link page
    expect(links.find((l) => pathOf(l.url) === '/')?.title).toBe('Home');
    expect(new Set(links.map((l) => normalizeUrl(l.url))).size).toBe(links.length);
    expect(links.some((l) => !l.url.startsWith(site.url))).toBe(false);
    // Bounded: the start page and at most MAP_MAX_PAGES link pages were read.
    const pagesRead = site.requests.slice(before).filter((r) => !/robots|sitemap/.test(r.path) && (r.status < 300 || r.status >= 400));
    expect(pagesRead.length).toBeLessThanOrEqual(26);
    const filtered = await api.call('POST', '/web-scrapper/map', { url: `${site.url}/`, include_paths: ['^/orphan/'], limit: 5 });
    expect(filtered.body.links.map((l: { url: string }) => pathOf(l.url))).toEqual(['/', '/orphan/0', '/orphan/1', '/orphan/2', '/orphan/3']);
    // Prefer: respond-async answers the id at once; a status read with Prefer: wait is answered when the map ends.
    const headers = { 'x-api-key': api.apiKey, 'content-type': 'application/json' };
    const early = await fetch(`${h.url}/web-scrapper/map`, { method: 'POST', headers: { ...headers, prefer: 'respond-async' }, body: JSON.stringify({ url: `${site.url}/`, include_paths: ['^/orphan/'], limit: 5 }) });
    const accepted = (await early.json()) as { request_id: string };
    expect([early.status, early.headers.get('preference-applied'), accepted]).toEqual([202, 'respond-async', { request_id: accepted.request_id, status: 'processing', url: `${site.url}/` }]);
    const waited = await fetch(`${h.url}/web-scrapper/map/${accepted.request_id}`, { headers: { ...headers, prefer: 'wait=10' } });
    expect([waited.headers.get('preference-applied'), ((await waited.json()) as { links: unknown[] }).links]).toEqual(['wait=10', filtered.body.links]);
  });

  it('scrapes a batch of URLs with the same options, reporting each failure without failing the batch', async () => {
    const urls = [`${site.url}/docs/s0/p0`, `${site.url}/docs/s0/p0#again`, `${site.url}/docs/s0/p1`, `${site.url}/broken`, `${site.url}/private/p1`, 'http://127.0.0.1:1/nothing-listens', `${site.url}/files/report.pdf`];
    const id = await api.start('batch', { urls, output_type: 'markdown', render_js: false });
    const { final, pages } = await api.finish('batch', id);
    expect(final.status).toBe('completed');
    expect(final.reason).toBe('every URL was read');
    const byPath = Object.fromEntries(pages.map((p) => [`${new URL(p.url).port}${pathOf(p.url)}`, p]));
    const port = new URL(site.url).port;
    expect(pages).toHaveLength(6); // the same page twice is read once
    expect(byPath[`${port}/docs/s0/p0`].content?.markdown).toContain('# Section 0 page 0');
    expect(byPath[`${port}/private/p1`].status).toBe('completed'); // a batch is not a crawl: the caller named the page
    expect(byPath[`${port}/broken`].error).toBe('E008: target answered HTTP 404');
    expect(byPath['1/nothing-listens'].status).toBe('failed');
    expect(byPath[`${port}/files/report.pdf`]).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/unsupported content type application\/pdf/) });
  });
});

describe('the account console API', () => {
  it("lists crawls, batches and maps among the account's requests with their counts, and a crawl's results page by page", async () => {
    const crawlId = await api.start('crawl', { url: `${site.url}/blog/`, limit: 4, sitemap: 'skip', render_js: false });
    const batchId = await api.start('batch', { urls: [`${site.url}/docs/s2/p0`, `${site.url}/docs/s2/p1`], render_js: false });
    const mapped = await api.call('POST', '/web-scrapper/map', { url: `${site.url}/`, include_paths: ['^/orphan/'], limit: 4 });
    const [{ final, pages }] = await Promise.all([api.finish('crawl', crawlId), api.finish('batch', batchId)]);
    const listed = (await api.call('GET', '/account/requests?limit=10')).body.requests as Array<Record<string, unknown>>;
    const byId = Object.fromEntries(listed.map((r) => [r.request_id, r]));
    expect(byId[crawlId]).toMatchObject({ family: 'crawl', status: 'completed', url: `${site.url}/blog/`, counts: final.counts });
    expect(byId[batchId]).toMatchObject({ family: 'batch', status: 'completed', urls: 2, counts: { completed: 2 } });
    expect(byId[mapped.body.request_id]).toMatchObject({ family: 'map', status: 'completed', links: 4 });
    expect(byId[mapped.body.request_id]).not.toHaveProperty('counts');

    const first = (await api.call('GET', `/account/requests/${crawlId}?limit=3`)).body;
    expect(first.response).toMatchObject({ request_id: crawlId, status: 'completed', counts: final.counts, next: '3' });
    const read: CrawlPage[] = [...first.response.pages];
    for (let next = first.response.next; next !== null; ) {
      const { response } = (await api.call('GET', `/account/requests/${crawlId}?cursor=${next}&limit=3`)).body;
      expect(response.pages.length).toBeLessThanOrEqual(3);
      read.push(...response.pages);
      next = response.next;
    }
    expect(read.map((p) => p.url)).toEqual(pages.map((p) => p.url));
    expect((await api.call('GET', `/account/requests/${crawlId}?limit=101`)).status).toBe(400);
    expect((await api.call('GET', `/account/requests/${mapped.body.request_id}`)).body.response).toEqual(mapped.body);
  });
});

describe('pages that need rendering', () => {
  it('are rendered in the browser-worker when they look client-rendered (render_js auto)', async () => {
    await browserWorker.waitFor(/ready/, 60_000);
    const { final, pages } = await api.finish('crawl', await api.start('crawl', { url: `${site.url}/app`, limit: 1, sitemap: 'skip' }), 60_000);
    expect(final.status).toBe('completed');
    const app = pages.find((p) => pathOf(p.url) === '/app')!;
    expect(app.content?.meta.rendered).toBe(true);
    expect(app.content?.text).toContain('Only a browser sees this text.');
  }, 90_000);
});

describe('the command line', () => {
  it('gleaner crawl <url> writes each page read as a markdown file, progress on stderr', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'gleaner-crawl-'));
    try {
      const { stdout, stderr } = await gleanerCli(['crawl', `${site.url}/docs/s2/`, '--out', out, '--limit', '5', '--sitemap', 'skip', '--include', '^/docs/s2', '--render', 'false'], { GLEANER_URL: h.url, GLEANER_API_KEY: api.apiKey });
      expect(stderr).toMatch(/^crawl [0-9a-f-]{36} started; pages go to /);
      // Skipped: the links out of /docs/s2 (the nav bar, other sections), counted not listed.
      expect(stdout.trim()).toMatch(new RegExp(`^${out}: 5 pages written \\(0 failed, \\d+ skipped\\); crawl completed: the limit of 5 pages was reached$`));
      const hostDir = path.join(out, new URL(site.url).host.replace(':', '_'));
      const files = readdirSync(hostDir, { recursive: true }).map(String).filter((f) => f.endsWith('.md'));
      expect(files).toHaveLength(5);
      expect(files).toContain(path.join('docs', 's2', 'index.md'));
      expect(readFileSync(path.join(hostDir, 'docs', 's2', 'index.md'), 'utf8')).toContain('# Section 2');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('bad requests', () => {
  it("answers each in the scraper family's format", async () => {
    const cases: Array<[string, unknown, number, RegExp]> = [
      ['/web-scrapper/crawl', { url: 5 }, 400, /^E001: 'url' must be a string/],
      ['/web-scrapper/crawl', { url: 'ftp://x' }, 400, /^E003: /],
      ['/web-scrapper/crawl', { url: site.url, limit: 0 }, 400, /^E009: limit must be a whole number from 1 to 10000/],
      ['/web-scrapper/crawl', { url: site.url, include_paths: ['(a+)+$'] }, 400, /^E009: include_paths\[0\] must not repeat a group/],
      ['/web-scrapper/crawl', { url: site.url, exclude_paths: ['(unclosed'] }, 400, /^E009: exclude_paths\[0\] is not a valid regular expression/],
      ['/web-scrapper/crawl', { url: site.url, sitemap: 'sometimes' }, 400, /^E009: sitemap must be/],
      ['/web-scrapper/crawl', { url: site.url, use_llm: true }, 400, /^E009: prompt is required/],
      ['/web-scrapper/batch', { urls: [] }, 400, /^E009: urls must hold 1 to 1000 URLs/],
      ['/web-scrapper/batch', { urls: ['https://ok.example/', 'not a url'] }, 400, /^E003: urls\[1\]: url must be an absolute http or https URL/],
      ['/web-scrapper/map', { url: site.url, limit: 'many' }, 400, /^E001: 'limit' must be a number/],
    ];
    for (const [path, body, status, error] of cases) {
      const answer = await api.call('POST', path, body);
      expect([path, answer.status, answer.body.error]).toEqual([path, status, expect.stringMatching(error)]);
    }
    const unknown = await api.call('GET', `/web-scrapper/crawl/${newRequestId()}`);
    expect([unknown.status, unknown.body.error]).toEqual([404, 'E002: Request ID not found']);
    const badCursor = await api.call('GET', `/web-scrapper/crawl/0190a0a0-0000-7000-8000-000000000000?cursor=-1`);
    expect(badCursor.status).toBe(400);
  });

  it("refuses a crawl over the account's cap of running crawls (E010), until one ends", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await api.start('crawl', { url: `${site.url}/`, include_paths: ['^/slow/'], sitemap: 'skip', max_concurrency: 1, render_js: false }));
    const refused = await api.call('POST', '/web-scrapper/crawl', { url: `${site.url}/` });
    expect([refused.status, refused.body.error]).toEqual([429, expect.stringMatching(/^E010: this account already runs 3 crawls and batches/)]);
    for (const id of ids) await api.call('DELETE', `/web-scrapper/crawl/${id}`);
    expect((await api.call('POST', '/web-scrapper/crawl', { url: `${site.url}/docs/s0/p0`, limit: 1, sitemap: 'skip' })).status).toBe(202);
  });
});
