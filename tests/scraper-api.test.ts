import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { serviceEnv } from './support/env.js';
import { linkAndImageProblems, scriptOrStyleLeaks } from './support/extraction-checks.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';
import { htmlToText, realSitePages } from './support/web-corpus.js';
import { wordF1 } from './support/word-f1.js';
import { reportFigures } from './support/figures.js';

/**
 * The current scraper end to end: the gateway and the scraper worker as real processes, corpus
 * pages from a local server. (Run in this process, their multi-MB Redis replies left
 * redis-parser's buffer-pool timer, a module-level setInterval that stops only once the pool has
 * shrunk, running for seconds after the tests: jest's "did not exit one second after".)
 */
const prefix = testPrefix('scraper');
const env = serviceEnv(prefix);
const pages = realSitePages();
let gateway: GatewayProcess;
let worker: ServiceProcess;
let test: TestStores;
let site: Awaited<ReturnType<typeof startPageServer>>;
let alice: CreatedAccount;
let bob: CreatedAccount;

beforeAll(async () => {
  const routes: Parameters<typeof startPageServer>[0] = {
    '/plain.txt': (_q, s) => s.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Just text.\nSecond line.'),
    '/report.pdf': (_q, s) => s.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 fake'),
    '/huge': (_q, s) => {
      s.writeHead(200, { 'content-type': 'text/html' });
      s.end(Buffer.alloc(12 * 1024 * 1024, 'a'));
    },
    '/bomb': (_q, s) => {
      s.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      s.end(zlib.gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20)));
    },
    // 400,000 nested <div> (4.4 MB, under the 10 MB limit): quadratic to parse before the cap.
    '/deep': html(`<h1>Deep page</h1>${'<div>'.repeat(400_000)}<p>Deep text.</p>${'</div>'.repeat(400_000)}`, '<title>Deep page</title>'),
    '/gone': (_q, s) => s.writeHead(410, { 'content-type': 'text/html' }).end('<p>gone</p>'),
    // 120,000 blocks, 8 MB (under the 10 MB limit): its parse alone takes seconds, one phase
    // longer than a 100 ms extraction budget plus the pool's 1 s margin.
    '/dense': html(`<h1>Dense</h1>${'<div class="c"><p>Dense block of words.</p><a href="/p">link</a></div>'.repeat(120_000)}`, '<title>Dense</title>'),
    // 3,000 blocks: parsed in about 0.3 s, so the thread's own clock stops it after the parse, well
    // before the pool's timer (budget + 1 s) would terminate the thread.
    '/medium': html(`<h1>Medium</h1>${'<div class="c"><p>Dense block of words.</p><a href="/p">link</a></div>'.repeat(3_000)}`, '<title>Medium</title>'),
    '/cached': html('<article><h1>Cache me</h1><p>Cached article body text, long enough to be the main content of the page for sure.</p></article>', '<title>Cache me</title>'),
  };
  for (const p of pages) routes[`/corpus/${p.folder}/page.html`] = (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(p.source);
  site = await startPageServer(routes);
  worker = startService('scraper-worker', { ...env, SCRAPER_CONCURRENCY: '4' });
  [gateway] = await Promise.all([startGatewayProcess(env), worker.waitFor(/ready/)]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  alice = await createAccountWithKey(test.stores, 'alice', { ratePerMinute: 10_000 });
  bob = await createAccountWithKey(test.stores, 'bob');
}, 90_000);

afterAll(async () => {
  await Promise.all([worker?.kill(), gateway?.process.kill()]);
  await site?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

const scrape = (account: CreatedAccount, body: Record<string, unknown>) => request(gateway.url).post('/web-scrapper/').set('x-api-key', account.apiKey).send(body);
const status = (account: CreatedAccount, id: string) => request(gateway.url).get(`/web-scrapper/${id}`).set('x-api-key', account.apiKey);

describe('corpus pages through the API', () => {
  it('meets the title, text and hygiene bars on every real-site page', async () => {
    let titles = 0;
    let f1Sum = 0;
    const queue = [...pages];
    const results: Array<{ folder: string; ok: boolean }> = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let p = queue.shift(); p; p = queue.shift()) {
          const res = await scrape(alice, { url: `${site.url}/corpus/${p.folder}/page.html`, output_type: 'markdown' });
          expect(res.status).toBe(200);
          const b = res.body;
          const norm = (s: string) => (s ?? '').replace(/\s+/g, ' ').trim();
          if (norm(b.meta.title) === norm(p.expectedMeta.title)) titles++;
          f1Sum += wordF1(b.text_content, htmlToText(p.expectedHtml));
          expect(b.markdown_content.length).toBeGreaterThan(0);
          expect(scriptOrStyleLeaks(p.source, { text: b.text_content, markdown: b.markdown_content }).map((probe) => `${p.folder}: ${probe}`)).toEqual([]);
          expect(linkAndImageProblems(b.links, b.images).map((problem) => `${p.folder}: ${problem}`)).toEqual([]);
          expect(b.meta.final_url).toBe(`${site.url}/corpus/${p.folder}/page.html`);
          expect(b.meta.status_code).toBe(200);
          results.push({ folder: p.folder, ok: true });
        }
      }),
    );
    reportFigures(`API corpus run: ${pages.length} pages, title match ${((titles / pages.length) * 100).toFixed(1)} %, mean F1 ${(f1Sum / pages.length).toFixed(4)}`);
    expect(results).toHaveLength(pages.length);
    expect(titles / pages.length).toBeGreaterThanOrEqual(0.9);
    expect(f1Sum / pages.length).toBeGreaterThanOrEqual(0.9);
  }, 240_000);

  it('serves text/plain as text', async () => {
    const res = await scrape(alice, { url: `${site.url}/plain.txt` });
    expect(res.status).toBe(200);
    expect(res.body.text_content).toBe('Just text.\nSecond line.');
  });
});

describe('cache', () => {
  it('misses (404 E002), then hits with the original id and cached: true, and never crosses accounts', async () => {
    const url = `${site.url}/cached`;
    const miss = await scrape(alice, { url, use_cache: true });
    expect(miss.status).toBe(404);
    expect(miss.body).toEqual({ error: 'E002: No cached result for this URL' });
    const first = await scrape(alice, { url });
    expect(first.status).toBe(200);
    const hit = await scrape(alice, { url, use_cache: true, output_type: 'nonsense' });
    expect(hit.status).toBe(200);
    expect(hit.body).toMatchObject({ cached: true, request_id: first.body.request_id, timestamp: first.body.timestamp, text_content: first.body.text_content });
    const other = await scrape(bob, { url, use_cache: true });
    expect(other.status).toBe(404);
  });

  it('with use_cache: true checks only url (every other field is ignored, SPEC)', async () => {
    const url = `${site.url}/cached`;
    const first = await scrape(alice, { url });
    expect(first.status).toBe(200);
    const junk = { output_type: 5, use_llm: 'yes', prompt: ['x'], webhook: 42, llm_key_id: {}, schema: 'none' };
    const hit = await scrape(alice, { url, use_cache: true, ...junk });
    expect([hit.status, hit.body.cached, hit.body.request_id]).toEqual([200, true, first.body.request_id]);
    const miss = await scrape(bob, { url, use_cache: true, ...junk });
    expect([miss.status, miss.body]).toEqual([404, { error: 'E002: No cached result for this URL' }]);
    // url itself is still checked, and a use_cache that is not a boolean is no cache lookup.
    expect((await scrape(alice, { use_cache: true, ...junk })).body.error).toMatch(/^E001: 'url' is required/);
    expect((await scrape(alice, { url: 7, use_cache: true })).body.error).toMatch(/^E001: 'url' must be a string/);
    expect((await scrape(alice, { url: 'not a url', use_cache: true })).body.error).toMatch(/^E003: /);
    expect((await scrape(alice, { url: 'http://user:secret@example.com/', use_cache: true })).body.error).toMatch(/^E003: /);
    // A lookup fetches nothing, so its host is not resolved: one that does not resolve is a miss,
    // where a scrape of it is refused as unresolvable.
    const nowhere = 'http://no-such-host.invalid/page';
    expect((await scrape(alice, { url: nowhere })).body.error).toBe('E003: the host of url could not be resolved');
    const lookup = await scrape(alice, { url: nowhere, use_cache: true });
    expect([lookup.status, lookup.body]).toEqual([404, { error: 'E002: No cached result for this URL' }]);
    expect((await scrape(alice, { url, use_cache: 'true', output_type: 5 })).body.error).toMatch(/^E001: /);
  });
});

describe('status endpoint', () => {
  it('answers for completed, failed and unknown ids', async () => {
    const ok = await scrape(alice, { url: `${site.url}/cached` });
    const completed = await status(alice, ok.body.request_id);
    expect(completed.body).toMatchObject({ status: 'completed', request_id: ok.body.request_id });
    expect(completed.body.content.text).toContain('Cached article body');
    expect(completed.body.content.markdown).toBeUndefined();
    const gone = await scrape(alice, { url: `${site.url}/gone` });
    expect(gone.status).toBe(500);
    const failed = await status(alice, gone.body.request_id);
    expect(failed.body).toMatchObject({ status: 'failed', error: 'E008: target answered HTTP 410' });
    expect(failed.body.error_trace).toBeUndefined();
    const unknown = await status(alice, '0190a000-0000-7000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/^E002: /);
  });
});

describe('hostile targets fail cleanly', () => {
  it.each([
    ['/huge', /E008: .*larger than 10 MB/],
    ['/bomb', /E008: .*larger than 10 MB/],
    ['/report.pdf', /E008: unsupported content type application\/pdf.*\/documents/],
  ])('%s', async (path, message) => {
    const res = await scrape(alice, { url: `${site.url}${path}` });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(message);
  });
});

describe('hostile nesting', () => {
  it('a 400,000-deep page (4.4 MB) completes within the window, and the worker keeps serving', async () => {
    // Before the nesting cap this page took minutes (233 s in-process) and ended as a failure at
    // the extraction budget; now it takes about a second. 15 s leaves room for a loaded machine.
    const started = Date.now();
    const deep = await scrape(alice, { url: `${site.url}/deep`, output_type: 'markdown' });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(deep.status).toBe(200);
    expect(deep.body.text_content).toBe('Deep page\n\nDeep text.');
    expect(deep.body.markdown_content).toContain('Deep text.');
    const next = await scrape(alice, { url: `${site.url}/plain.txt` });
    expect([next.status, next.body.text_content]).toEqual([200, 'Just text.\nSecond line.']);
  });
});

describe('validation and SSRF at submit', () => {
  it('E001 malformed, E003 bad URL, E009 rule violations', async () => {
    expect((await scrape(alice, { output_type: 'markdown' })).body.error).toMatch(/^E001: /);
    expect((await scrape(alice, { url: 42 })).body.error).toMatch(/^E001: /);
    expect((await scrape(alice, { url: 'not a url' })).body.error).toMatch(/^E003: /);
    expect((await scrape(alice, { url: 'ftp://example.com/x' })).body.error).toMatch(/^E003: /);
    expect((await scrape(alice, { url: `${site.url}/x`, output_type: 'pdf' })).body.error).toMatch(/^E009: /);
    expect((await scrape(alice, { url: `${site.url}/x`, use_llm: true })).body.error).toMatch(/^E009: prompt/);
    expect((await scrape(alice, { url: `${site.url}/x`, use_llm: true, prompt: 'x' })).body.error).toMatch(/^E009: no language-model key/);
  });

  it('refuses loopback, private, link-local and metadata targets without the override', async () => {
    const strict = await startGatewayProcess({ ...env, GLEANER_ALLOW_PRIVATE_NETWORKS: 'false' });
    try {
      for (const url of ['http://127.0.0.1/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://localhost/', 'http://2130706433/', 'http://[::ffff:127.0.0.1]/']) {
        const res = await request(strict.url).post('/web-scrapper/').set('x-api-key', alice.apiKey).send({ url });
        expect([url, res.status]).toEqual([url, 400]);
        expect(res.body.error).toMatch(/^E003: /);
      }
    } finally {
      await strict.process.kill();
    }
  });
});

describe('extraction time budget', () => {
  // Processes of their own (the ones above keep the default 30 s): a scraper worker whose
  // extraction budget is 100 ms, the least its configuration accepts, with one extraction thread.
  const budgetPrefix = testPrefix('scraper-budget');
  const budgetEnv = serviceEnv(budgetPrefix, { SCRAPER_EXTRACT_BUDGET_MS: '100', SCRAPER_EXTRACT_THREADS: '1' });
  let budgetGateway: GatewayProcess;
  let budgetWorker: ServiceProcess;
  let budgetStores: TestStores;
  let carol: CreatedAccount;

  beforeAll(async () => {
    budgetWorker = startService('scraper-worker', budgetEnv);
    [budgetGateway] = await Promise.all([startGatewayProcess(budgetEnv), budgetWorker.waitFor(/ready/)]);
    budgetStores = openTestStores(budgetPrefix, budgetEnv.GLEANER_SECRET);
    carol = await createAccountWithKey(budgetStores.stores, 'carol', { ratePerMinute: 10_000 });
  }, 90_000);

  afterAll(async () => {
    await Promise.all([budgetWorker?.kill(), budgetGateway?.process.kill()]);
    await budgetStores?.close();
    await deleteKeysWithPrefix(budgetPrefix);
  });

  const budgetScrape = (body: Record<string, unknown>) => request(budgetGateway.url).post('/web-scrapper/').set('x-api-key', carol.apiKey).send(body);

  const OVER_BUDGET = 'E008: content extraction exceeded its 0.1 s budget';

  it('a dense page overruns it: 500 with the E008 budget message; a normal page still succeeds', async () => {
    // The pool's timer ends this one (the thread is terminated mid-parse and replaced).
    const url = `${site.url}/dense`;
    const dense = await budgetScrape({ url });
    expect([dense.status, dense.body]).toEqual([500, { request_id: expect.any(String), url, status: 'failed', timestamp: expect.any(Number), error: OVER_BUDGET }]);
    const failed = await request(budgetGateway.url).get(`/web-scrapper/${dense.body.request_id}`).set('x-api-key', carol.apiKey);
    expect(failed.body).toMatchObject({ status: 'failed', error: OVER_BUDGET });
    // The replacement thread takes seconds to load; that is not this page's extraction time. Its
    // first pages run cold (unoptimised code) and may overrun 0.1 s on a loaded host: the pool
    // serves again if one of three scrapes of a normal page fits the budget.
    let normal = await budgetScrape({ url: `${site.url}/cached` });
    for (let tries = 1; tries < 3 && normal.status !== 200; tries++) normal = await budgetScrape({ url: `${site.url}/cached` });
    expect([normal.status, normal.body.text_content]).toEqual([200, expect.stringContaining('Cached article body text')]);
  });

  it('an overrun seen by the thread itself (between phases) answers the same E008, and the thread keeps serving', async () => {
    const medium = await budgetScrape({ url: `${site.url}/medium` });
    expect([medium.status, medium.body.error]).toEqual([500, OVER_BUDGET]);
    let page = await budgetScrape({ url: `${site.url}/cached` });
    for (let tries = 1; tries < 3 && page.status !== 200; tries++) page = await budgetScrape({ url: `${site.url}/cached` });
    expect([page.status, page.body.meta?.title]).toEqual([200, 'Cache me']);
  });
});
