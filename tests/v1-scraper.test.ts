import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@gleaner/platform';
import { loadScraperWorkerConfig, startScraperWorker, type RunningService } from '@gleaner/scraper-worker';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { html, startPageServer } from './support/page-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { realSitePages } from './support/web-corpus.js';

/** Deprecated v1 scraper end to end on corpus pages served locally. */
const prefix = testPrefix('v1');
const wiki = realSitePages().find((p) => p.folder === 'wikipedia')!;
let h: GatewayHarness;
let worker: RunningService;
let site: Awaited<ReturnType<typeof startPageServer>>;
let account: TestAccount;

beforeAll(async () => {
  site = await startPageServer({
    '/wiki': (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(wiki.source),
    '/small': html('<h1 id="t">Title here</h1><ul><li class="i">One</li><li class="i">Two</li><li class="i">Three</li></ul><a href="/x" title="go">Go</a>', '<title>Small</title>'),
    '/forbidden': (_q, s) => s.writeHead(403, { 'content-type': 'text/html' }).end('<p>no</p>'),
    '/big': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${'<p>filler paragraph</p>'.repeat(300_000)}</body></html>`),
  });
  h = await GatewayHarness.start(prefix);
  worker = await startScraperWorker(loadScraperWorkerConfig(serviceEnv(prefix)), createLogger('v1-test', 'error'));
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
    expect(xpath.body.error).toMatch(/XPath/);
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

  it('a 6 MB page fails (v1 reads at most 5 MB)', async () => {
    const res = await submit({ url: `${site.url}/big`, use_llm: false });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatch(/larger than 5 MB/);
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
    const unknown = await request(h.url).get('/v1/llm-web-scrapper/0190a000-0000-7000-8000-000000000000').set('x-api-key', account.apiKey);
    expect(unknown.status).toBe(404);
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
