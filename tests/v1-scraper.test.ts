import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import request from 'supertest';
import { createLogger, newRequestId } from '@gleaner/platform';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { html, startPageServer, streamedBody } from './support/page-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';
import { realSitePages } from './support/web-corpus.js';

/** Deprecated v1 scraper end to end on corpus pages served locally. */
const prefix = testPrefix('v1');
const wiki = realSitePages().find((p) => p.folder === 'wikipedia')!;
let h: GatewayHarness;
let worker: RunningService;
let site: Awaited<ReturnType<typeof startPageServer>>;
let account: TestAccount;
/** Short, so that a pathological selector fails fast; ordinary ones take well under 1 s. */
const SELECTOR_BUDGET_MS = 3000;
/** 1,500 blocks: `//*[count(//*) > 0]` counts every element once per element, about 17 s here. */
const blocks = (n: number) => '<div><p>x</p></div>'.repeat(n);
const MB = 1024 * 1024;

/** A promise with its resolve function outside (the test opens what a page handler waits on). */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
/** `/held`: the worker's fetch has reached the page (`entered`); the page answers once `release` opens. */
let held = { entered: gate(), release: gate() };
/** 6 MB in 64 KB chunks, no Content-Length, and then the response stays open. */
const chunked = streamedBody(6 * MB, { contentType: 'text/html; charset=utf-8', keepOpen: true });

beforeAll(async () => {
  site = await startPageServer({
    '/wiki': (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(wiki.source),
    '/small': html('<h1 id="t">Title here</h1><ul><li class="i">One</li><li class="i">Two</li><li class="i">Three</li></ul><a href="/x" title="go">Go</a>', '<title>Small</title>'),
    '/forbidden': (_q, s) => s.writeHead(403, { 'content-type': 'text/html' }).end('<p>no</p>'),
    '/deep': html(`<h1>Deep page</h1>${'<div>'.repeat(400_000)}<p>Deep text.</p>${'</div>'.repeat(400_000)}`),
    '/blocks': html(`<h1>Blocks</h1>${blocks(1500)}`),
    '/dense': html(`<h1>Dense</h1>${'<div class="c"><span>x</span><a href="/p">l</a></div>'.repeat(30_000)}`),
    '/big': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${'<p>filler paragraph</p>'.repeat(300_000)}</body></html>`),
    '/held': async (_q, s) => {
      held.entered.open();
      await held.release.promise;
      s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html><head><title>Held</title></head><body><h1>Held page</h1></body></html>');
    },
    // Only a limit counted while the body streams ends this (a reader waiting for the end would time out).
    '/chunked-6mb': chunked.handler,
  });
  h = await GatewayHarness.start(prefix);
  worker = await startScraperWorker(loadScraperWorkerConfig(serviceEnv(prefix, { SCRAPER_V1_SELECTOR_BUDGET_MS: String(SELECTOR_BUDGET_MS) })), createLogger('v1-test', 'error'));
  account = await h.account('v1-user');
  await h.stores.accounts.setRateLimit(account.accountId, 10_000);
});

afterAll(async () => {
  await worker?.stop();
  await h?.stop();
  await site?.close();
  await deleteKeysWithPrefix(prefix);
});

const submit = (body: Record<string, unknown>) => request(h.url).post('/v1/llm-web-scrapper').set('x-api-key', account.apiKey).send(body);
const statusOf = (id: string) => request(h.url).get(`/v1/llm-web-scrapper/${id}`).set('x-api-key', account.apiKey);

describe('selectors', () => {
  it('CSS matching one element, many elements and none', async () => {
    const one = await submit({ url: `${site.url}/small`, selector: 'h1#t', use_llm: false });
    expect(one.status).toBe(200);
    expect(one.body.scraped_content).toEqual({ html: '<h1 id="t">Title here</h1>', text: 'Title here' });
    const many = await submit({ url: `${site.url}/small`, selector: 'li.i', use_llm: false });
    expect(many.body.scraped_content.html.split('\n')).toHaveLength(3);
    expect(many.body.scraped_content.text).toBe('One\nTwo\nThree');
    const none = await submit({ url: `${site.url}/small`, selector: 'table', use_llm: false });
    expect(none.body.scraped_content).toEqual({ html: '', text: '' });
  });

  it('XPath elements, attributes, text() and values, on a real page', async () => {
    const heading = await submit({ url: `${site.url}/wiki`, selector: '//h1', use_llm: false });
    expect(heading.status).toBe(200);
    expect(heading.body.scraped_content.text.length).toBeGreaterThan(0);
    const attr = await submit({ url: `${site.url}/small`, selector: '//a/@title', use_llm: false });
    expect(attr.body.scraped_content).toEqual({ html: 'go', text: 'go' });
    const text = await submit({ url: `${site.url}/small`, selector: '//li/text()', use_llm: false });
    expect(text.body.scraped_content.text).toBe('One\nTwo\nThree');
    const count = await submit({ url: `${site.url}/small`, selector: 'count(//li)', use_llm: false });
    expect(count.status).toBe(400); // "count(" does not start with / ./ or ( : it is read as CSS and is invalid
    const counted = await submit({ url: `${site.url}/small`, selector: '(//li)[2]', use_llm: false });
    expect(counted.body.scraped_content.text).toBe('Two');
  });

  it('XPath matching many elements (outer HTML joined by newlines) and none', async () => {
    const many = await submit({ url: `${site.url}/small`, selector: '//li', use_llm: false });
    expect(many.status).toBe(200);
    expect(many.body.scraped_content).toEqual({ html: '<li class="i">One</li>\n<li class="i">Two</li>\n<li class="i">Three</li>', text: 'One\nTwo\nThree' });
    const none = await submit({ url: `${site.url}/small`, selector: '//table', use_llm: false });
    expect(none.status).toBe(200);
    expect(none.body.scraped_content).toEqual({ html: '', text: '' });
  });

  it('evaluates XPath 1.0 that jsdom cannot: local-name() and name tests on HTML', async () => {
    const title = await submit({ url: `${site.url}/small`, selector: "//*[local-name()='title']", use_llm: false });
    expect(title.status).toBe(200);
    expect(title.body.scraped_content).toEqual({ html: '<title>Small</title>', text: 'Small' });
    const upper = await submit({ url: `${site.url}/small`, selector: '//H1', use_llm: false });
    expect(upper.body.scraped_content.text).toBe('Title here');
  });

  it('a pathological selector fails with 400 inside its budget, and the worker keeps serving', async () => {
    const started = Date.now();
    const slow = await submit({ url: `${site.url}/blocks`, selector: '//*[count(//*) > 0]', use_llm: false });
    const elapsed = Date.now() - started;
    expect(slow.status).toBe(400);
    expect(slow.body).toMatchObject({ error: 'selector evaluation exceeded its 3 s budget', status_code: 400 });
    // Unbounded, this selector runs ~17 s; the budget (3 s) plus fetch and parse is far less.
    expect(elapsed).toBeLessThan(12_000);
    const next = await submit({ url: `${site.url}/blocks`, selector: '//h1', use_llm: false });
    expect([next.status, next.body.scraped_content?.text]).toEqual([200, 'Blocks']);
  });

  it('no selector means the whole page', async () => {
    const res = await submit({ url: `${site.url}/small`, use_llm: false });
    expect(res.body.scraped_content.html).toContain('<h1 id="t">');
    expect(res.body.scraped_content.text).toContain('Three');
  });

  it('invalid selectors of both kinds are 400 in the v1 format', async () => {
    const css = await submit({ url: `${site.url}/small`, selector: 'li[[', use_llm: false });
    expect(css.status).toBe(400);
    expect(css.body).toMatchObject({ status_code: 400 });
    expect(css.body.error).toMatch(/CSS/);
    const xpath = await submit({ url: `${site.url}/small`, selector: '//li[', use_llm: false });
    expect(xpath.status).toBe(400);
    expect(xpath.body).toEqual({ error: 'invalid XPath selector: syntax error (not an XPath 1.0 expression)', status_code: 400 });
    for (const selector of ['//div[', '//p[@id=', '///', '(//a']) {
      const res = await submit({ url: `${site.url}/small`, selector, use_llm: false });
      expect([selector, res.status, res.body.error]).toEqual([selector, 400, expect.stringMatching(/^invalid XPath selector: \S/)]);
    }
    // Functions are looked up when called: this one fails in the worker, on the page's <li>.
    const unknownFunction = await submit({ url: `${site.url}/small`, selector: '//li[shout()]', use_llm: false });
    expect(unknownFunction.body).toMatchObject({ error: 'unsupported XPath expression: Unknown function shout', status_code: 400 });
  });
});

describe('selectors on a real corpus page (wikipedia/source.html, served as is)', () => {
  // Expectations come from the file, not from our code: its markup is regular (HTML Tidy output,
  // corpus README), so the headlines are plain strings in it; the links come from linkedom, a
  // parser other than the worker's jsdom.
  const headline = /<span class="mw-headline" id="([^"]*)">([^<]*)<\/span>/g;
  const headlines = [...wiki.source.matchAll(headline)].map(([outer, id, name]) => ({ outer, id, name }));
  const sections = [...wiki.source.matchAll(/<h2>(<span class="mw-headline" id="([^"]*)">([^<]*)<\/span>)/g)].map(([, outer, id, name]) => ({ outer, id, name }));
  const select = (selector: string) => submit({ url: `${site.url}/wiki`, selector, use_llm: false });

  it('CSS: one element, many elements (outer HTML joined by newlines), none', async () => {
    expect(wiki.source.match(/<h1[\s>]/g)).toHaveLength(1);
    const one = await select('h1#firstHeading');
    expect([one.status, one.body.scraped_content]).toEqual([200, { html: '<h1 id="firstHeading" class="firstHeading" lang="en">Mozilla</h1>', text: 'Mozilla' }]);
    expect(wiki.source).toContain(one.body.scraped_content.html);

    expect(sections.map((s) => s.name)).toEqual(['History', 'Values', 'Software', 'Other activities', 'Community', 'See also', 'References', 'External links']);
    const many = await select('h2 > span.mw-headline');
    expect(many.status).toBe(200);
    expect(many.body.scraped_content.html.split('\n')).toHaveLength(8);
    expect(many.body.scraped_content).toEqual({ html: sections.map((s) => s.outer).join('\n'), text: sections.map((s) => s.name).join('\n') });

    expect(wiki.source).not.toMatch(/<video[\s>]/i);
    const none = await select('video');
    expect([none.status, none.body]).toEqual([200, { request_id: expect.any(String), scraped_content: { html: '', text: '' } }]);
  });

  it('XPath: many elements and none', async () => {
    // The pattern caught every headline of the page (none has markup or entities inside).
    expect(headlines).toHaveLength(wiki.source.split('class="mw-headline"').length - 1);
    expect(headlines).toHaveLength(36);
    const many = await select("//span[@class='mw-headline']");
    expect(many.status).toBe(200);
    expect(many.body.scraped_content.html.split('\n')).toHaveLength(36);
    expect(many.body.scraped_content).toEqual({ html: headlines.map((x) => x.outer).join('\n'), text: headlines.map((x) => x.name).join('\n') });
    // The page's only h1 has lang="en": a predicate that matches nothing.
    expect(wiki.source).not.toMatch(/<h1[^>]*lang="fr"/);
    const none = await select("//h1[@lang='fr']");
    expect([none.status, none.body]).toEqual([200, { request_id: expect.any(String), scraped_content: { html: '', text: '' } }]);
  });

  it('XPath attribute results (//a/@href, headline ids) and text() results', async () => {
    const { document } = parseHTML(wiki.source);
    const hrefs = [...document.querySelectorAll('a[href]')].map((a) => (a.getAttribute('href') ?? '').trim());
    // linkedom found every <a href> in the file (848 of them).
    expect(hrefs).toHaveLength((wiki.source.match(/<a\s[^>]*\bhref=/g) ?? []).length);
    expect(hrefs).toHaveLength(848);
    const links = await select('//a/@href');
    expect(links.status).toBe(200);
    expect(links.body.scraped_content.html.split('\n')).toHaveLength(848);
    expect(links.body.scraped_content).toEqual({ html: hrefs.join('\n'), text: hrefs.join('\n') });

    const ids = await select("//span[@class='mw-headline']/@id");
    expect(ids.body.scraped_content.text).toBe(headlines.map((x) => x.id).join('\n'));

    const title = await select('//h1/text()');
    expect([title.status, title.body.scraped_content]).toEqual([200, { html: 'Mozilla', text: 'Mozilla' }]);
    const names = await select("//h2/span[@class='mw-headline']/text()");
    expect(names.body.scraped_content).toEqual({ html: sections.map((s) => s.name).join('\n'), text: sections.map((s) => s.name).join('\n') });
  });
});

describe('targets', () => {
  it('403 when the target refuses us, 404 when the page is missing', async () => {
    const forbidden = await submit({ url: `${site.url}/forbidden`, use_llm: false });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.status_code).toBe(403);
    const missing = await submit({ url: `${site.url}/nope`, use_llm: false });
    expect(missing.status).toBe(404);
    expect(missing.body.status_code).toBe(404);
  });

  it('a 400,000-deep page (4.4 MB) is read within the window, not a stack overflow after 25 s', async () => {
    const started = Date.now();
    const res = await submit({ url: `${site.url}/deep`, selector: 'h1', use_llm: false });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect([res.status, res.body.scraped_content]).toEqual([200, { html: '<h1>Deep page</h1>', text: 'Deep page' }]);
    // Past 128 levels the tags are flattened (as for the current scraper): the text stays.
    const whole = await submit({ url: `${site.url}/deep`, use_llm: false });
    expect(whole.body.scraped_content?.text).toBe('Deep page\nDeep text.');
  });

  it('a 6 MB page fails (v1 reads at most 5 MB)', async () => {
    const res = await submit({ url: `${site.url}/big`, use_llm: false });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/larger than 5 MB/);
  });

  it('a 6 MB page sent chunked without Content-Length fails at 5 MB while it streams, and the worker serves on', async () => {
    const started = Date.now();
    const res = await submit({ url: `${site.url}/chunked-6mb`, selector: 'p', use_llm: false });
    // The page was framed as intended: chunked, no length to refuse it by.
    expect([chunked.last.chunkedEncoding, chunked.last.contentLength]).toEqual([true, false]);
    expect([res.status, res.body]).toEqual([500, { error: 'the response is larger than 5 MB', status_code: 500, request_id: expect.any(String) }]);
    // The page never ends: a fetch that read to the end would still wait (20 s total timeout).
    expect(Date.now() - started).toBeLessThan(15_000);
    await waitFor(() => chunked.last.closed, Boolean, 5_000);
    expect(chunked.last.closed).toBe(true);
    const status = await statusOf(res.body.request_id);
    expect(status.body).toEqual({ request_id: res.body.request_id, status: 'failed', status_code: 500, details: 'the response is larger than 5 MB' });
    const next = await submit({ url: `${site.url}/small`, selector: 'h1#t', use_llm: false });
    expect([next.status, next.body.scraped_content]).toEqual([200, { html: '<h1 id="t">Title here</h1>', text: 'Title here' }]);
  });
});

describe('status and credits', () => {
  it('status reads: 3 allowed, the 4th answers 429; unknown ids 404', async () => {
    const res = await submit({ url: `${site.url}/small`, selector: 'h1', use_llm: false });
    const id = res.body.request_id;
    for (let i = 0; i < 3; i++) {
      const s = await request(h.url).get(`/v1/llm-web-scrapper/${id}`).set('x-api-key', account.apiKey);
      expect(s.status).toBe(200);
      expect(s.body).toMatchObject({ request_id: id, status: 'completed', scraped_content: { text: 'Title here' } });
    }
    const fourth = await request(h.url).get(`/v1/llm-web-scrapper/${id}`).set('x-api-key', account.apiKey);
    expect(fourth.status).toBe(429);
    expect(fourth.body.status_code).toBe(429);
    const unknown = await request(h.url).get(`/v1/llm-web-scrapper/${newRequestId()}`).set('x-api-key', account.apiKey);
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Request ID not found', status_code: 404 }]);
  });

  it('a request whose page is still loading reads processing, then completed (two of its three reads)', async () => {
    // A gateway of its own with a 300 ms window answers 202 while the worker still waits for `/held`.
    const quick = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '300' });
    held = { entered: gate(), release: gate() };
    try {
      const res = await request(quick.url).post('/v1/llm-web-scrapper').set('x-api-key', account.apiKey).send({ url: `${site.url}/held`, selector: 'h1', use_llm: false });
      expect([res.status, res.body]).toEqual([202, { request_id: expect.any(String), status: 'processing' }]);
      const id: string = res.body.request_id;
      // The worker's fetch has reached the page, which does not answer yet.
      await held.entered.promise;
      const during = await statusOf(id);
      expect([during.status, during.body]).toEqual([200, { request_id: id, status: 'processing' }]);
      held.release.open();
      // Waiting reads the store, not the status endpoint: those reads are limited.
      const record = await waitFor(() => h.stores.records.get('scrape-v1', id), (r) => r?.status === 'completed', 15_000);
      expect(record?.status).toBe('completed');
      const after = await statusOf(id);
      expect([after.status, after.body]).toEqual([200, { request_id: id, status: 'completed', scraped_content: { html: '<h1>Held page</h1>', text: 'Held page' } }]);
    } finally {
      held.release.open();
      await quick.stop();
    }
  });

  it('an id older than 24 hours answers 404 (expired)', async () => {
    // A UUIDv7 minted 25 hours ago: its time says it is past the 24-hour lifetime.
    const hex = (Date.now() - 25 * 3600 * 1000).toString(16).padStart(12, '0');
    const oldId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
    const expired = await request(h.url).get(`/v1/llm-web-scrapper/${oldId}`).set('x-api-key', account.apiKey);
    expect([expired.status, expired.body]).toEqual([404, { error: 'Request ID expired (ids live 24 hours)', status_code: 404 }]);
  });

  it('one credit per submit, status reads free, readable at /account/usage', async () => {
    const before = (await request(h.url).get('/account/usage').set('x-api-key', account.apiKey)).body.credits_used;
    const res = await submit({ url: `${site.url}/small`, selector: 'h1', use_llm: false });
    await request(h.url).get(`/v1/llm-web-scrapper/${res.body.request_id}`).set('x-api-key', account.apiKey);
    const after = (await request(h.url).get('/account/usage').set('x-api-key', account.apiKey)).body;
    expect(after.credits_used).toBe(before + 1);
    expect(after.requests['scrape-v1']).toBeGreaterThan(0);
  });
});

describe('phases a caller can see', () => {
  // A prefix of its own: a gateway with a short window and, at first, no worker at all.
  const quietPrefix = testPrefix('v1-quiet');
  let quick: GatewayHarness;
  let patient: GatewayHarness;
  let quietWorker: RunningService | undefined;
  let user: TestAccount;

  beforeAll(async () => {
    quick = await GatewayHarness.start(quietPrefix, { SYNC_WINDOW_MS: '300' });
    patient = await GatewayHarness.start(quietPrefix);
    user = await quick.account('v1-quiet');
  });

  afterAll(async () => {
    await quietWorker?.stop();
    await quick?.stop();
    await patient?.stop();
    await deleteKeysWithPrefix(quietPrefix);
  });

  it('a request no worker has picked up yet is pending', async () => {
    const res = await request(quick.url).post('/v1/llm-web-scrapper').set('x-api-key', user.apiKey).send({ url: `${site.url}/small`, use_llm: false });
    expect([res.status, res.body.status]).toEqual([202, 'processing']);
    const status = await request(quick.url).get(`/v1/llm-web-scrapper/${res.body.request_id}`).set('x-api-key', user.apiKey);
    expect([status.status, status.body]).toEqual([200, { request_id: res.body.request_id, status: 'pending' }]);
  });

  it('a parse over its budget is a processing failure (500), not the selector\'s fault', async () => {
    // 100 ms to parse a 1.5 MB page (about a second here): the parse overruns before `h1` runs.
    quietWorker = await startScraperWorker(
      loadScraperWorkerConfig(serviceEnv(quietPrefix, { SCRAPER_EXTRACT_BUDGET_MS: '100', SCRAPER_V1_SELECTOR_BUDGET_MS: '60000' })),
      createLogger('v1-quiet', 'error'),
    );
    const res = await request(patient.url).post('/v1/llm-web-scrapper').set('x-api-key', user.apiKey).send({ url: `${site.url}/dense`, selector: 'h1', use_llm: false });
    expect([res.status, res.body.error, res.body.status_code]).toEqual([500, 'parsing the page exceeded its 0.1 s budget', 500]);
  });
});
