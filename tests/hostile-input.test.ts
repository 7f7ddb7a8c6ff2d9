/**
 * Hostile pages and files through the real services (issue 11): each class of bomb sent to a
 * gateway, scraper-worker and parser-worker running as their own processes ends inside its budget
 * with a clear error in its family's format, and afterwards the same workers still serve.
 * Budgets are set short through configuration so that "inside its budget" is a bound that could
 * fail: a bomb that ran to the budget would still be caught, one that ran past it too.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { corruptFlatePdf, flateBombPdf, selfReferencingPageTreePdf } from './support/hand-written-pdf.js';
import { pixelBomb, zipBombDocx } from './support/hostile-files.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type CreatedAccount, type TestStores } from './support/test-stores.js';

const SCRAPE_BUDGET_MS = 8_000;
const PARSE_BUDGET_MS = 20_000;
/** Time a request spends outside the work itself (HTTP, queue, record writes) on a loaded 2-core machine. */
const SLACK_MS = 5_000;

const UTF7_SCRIPT = 'Hello +ADw-script+AD4-alert(1)+ADw-/script+AD4-';

const prefix = testPrefix('hostile');
const env = serviceEnv(prefix, { SCRAPER_EXTRACT_BUDGET_MS: String(SCRAPE_BUDGET_MS), PARSER_JOB_BUDGET_MS: String(PARSE_BUDGET_MS) });

const files: Record<string, Buffer> = {
  '/zip-bomb.docx': zipBombDocx(),
  '/pixel-bomb.png': pixelBomb(),
  // 1.2 GB of spaces in one content stream, about 1.2 MB on the wire.
  '/pdf-bomb.pdf': flateBombPdf('BT /F1 11 Tf 72 700 Td (start) Tj ET\n', ' '.repeat(1 << 20), 1200),
  '/million-lines.txt': Buffer.from('line\n'.repeat(1_000_001)),
  '/corrupt-flate.pdf': corruptFlatePdf(),
  '/page-tree-loop.pdf': selfReferencingPageTreePdf('cycle'),
  '/fine.txt': Buffer.from('Still serving documents after the hostile ones.\n'),
};

let gateway: GatewayProcess;
let workers: ServiceProcess[] = [];
let test: TestStores;
let site: Awaited<ReturnType<typeof startPageServer>>;
let account: CreatedAccount;

beforeAll(async () => {
  const gzipBomb = zlib.gzipSync(Buffer.alloc(100 * 1024 * 1024, 0x20));
  site = await startPageServer(
    {
      '/gzip-bomb': (_q, s) => s.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipBomb),
      // 400,000 nested elements, 4.4 MB: parsers and Readability are quadratic in depth.
      '/deep': html(`<h1>Deep page</h1>${'<div>'.repeat(400_000)}<p>Deep text.</p>${'</div>'.repeat(400_000)}`, '<title>Deep page</title>'),
      // `<script>alert(1)</script>` in UTF-7, declared by a meta, and by the header (issue 24).
      '/utf7-meta': (_q, s) => s.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><meta charset="utf-7"><title>UTF-7</title></head><body><p>${UTF7_SCRIPT}</p></body></html>`),
      '/utf7-header': (_q, s) => s.writeHead(200, { 'content-type': 'text/html; charset=UTF-7' }).end(`<html><head><title>UTF-7</title></head><body><p>${UTF7_SCRIPT}</p></body></html>`),
      '/unclosed-anchors': html(`<h1>Links</h1><p>${Array.from({ length: 300 }, (_, i) => `<a href="/p/${i}">Link ${i}`).join(' ')}</p>`, '<title>Links</title>'),
      '/fine': html('<article><h1>Fine</h1><p>Still serving pages after the hostile ones, with a paragraph long enough to be the article.</p></article>', '<title>Fine</title>'),
    },
    (req, res) => {
      const body = files[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    },
  );
  workers = [startService('scraper-worker', env), startService('parser-worker', env)];
  [gateway] = await Promise.all([startGatewayProcess(env), ...workers.map((w) => w.waitFor(/ready/, 90_000))]);
  test = openTestStores(prefix, env.GLEANER_SECRET);
  account = await createAccountWithKey(test.stores, 'hostile', { ratePerMinute: 10_000 });
}, 120_000);

afterAll(async () => {
  await Promise.all([gateway?.process.kill(), ...workers.map((w) => w.kill())]);
  await site?.close();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, ms: Date.now() - started };
}

function expectAlive(): void {
  for (const w of workers) expect({ exitCode: w.child.exitCode, signal: w.child.signalCode }).toEqual({ exitCode: null, signal: null });
}

describe('hostile pages', () => {
  it('a gzip bomb fails with E008 at the 10 MB limit, far inside the extraction budget', async () => {
    const res = await post('/web-scrapper/', { url: `${site.url}/gzip-bomb` });
    // Failed inside the window: the failed status result, with its code's HTTP status.
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ request_id: expect.any(String), url: `${site.url}/gzip-bomb`, status: 'failed', timestamp: expect.any(Number), error: expect.stringMatching(/^E008: .*larger than 10 MB/) });
    expect(res.ms).toBeLessThan(SCRAPE_BUDGET_MS);
  });

  it('v1 stops the same bomb at its own 5 MB limit', async () => {
    const res = await post('/v1/llm-web-scrapper', { url: `${site.url}/gzip-bomb`, use_llm: false });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ request_id: expect.any(String), error: expect.stringMatching(/larger than 5 MB/), status_code: 500 });
    expect(res.ms).toBeLessThan(SCRAPE_BUDGET_MS);
  });

  it('a 400,000-deep page is read inside the extraction budget, by both scrapers', async () => {
    const current = await post('/web-scrapper/', { url: `${site.url}/deep` });
    expect([current.status, current.body.text_content]).toEqual([200, 'Deep page\n\nDeep text.']);
    expect(current.ms).toBeLessThan(SCRAPE_BUDGET_MS + SLACK_MS);
    const v1 = await post('/v1/llm-web-scrapper', { url: `${site.url}/deep`, selector: 'h1', use_llm: false });
    expect([v1.status, (v1.body.scraped_content as { text?: string } | undefined)?.text]).toEqual([200, 'Deep page']);
    expect(v1.ms).toBeLessThan(SCRAPE_BUDGET_MS + SLACK_MS);
  });

  it.each(['/utf7-meta', '/utf7-header'])('%s: UTF-7 is not honoured, so no <script> in v1 scraped_content.html nor the current text', async (path) => {
    const v1 = await post('/v1/llm-web-scrapper', { url: `${site.url}${path}`, use_llm: false });
    expect(v1.status).toBe(200);
    const content = v1.body.scraped_content as { html: string; text: string };
    expect(content.html).toContain(`<p>${UTF7_SCRIPT}</p>`);
    expect(content.html).not.toMatch(/<script/i);
    expect(content.text).toContain(UTF7_SCRIPT);
    const current = await post('/web-scrapper/', { url: `${site.url}${path}`, output_type: 'markdown' });
    expect(current.status).toBe(200);
    expect(current.body.text_content).toBe(UTF7_SCRIPT);
    expect(String(current.body.markdown_content)).not.toMatch(/<script|alert\(1\)<\/script/i);
  });

  it('300 unclosed <a> are 300 links with their own text, and 300 v1 matches of the selector a', async () => {
    const expected = Array.from({ length: 300 }, (_, i) => ({ text: `Link ${i}`, url: `${site.url}/p/${i}`, type: 'internal' }));
    const current = await post('/web-scrapper/', { url: `${site.url}/unclosed-anchors` });
    expect([current.status, current.body.links]).toEqual([200, expected]);
    const v1 = await post('/v1/llm-web-scrapper', { url: `${site.url}/unclosed-anchors`, selector: 'a', use_llm: false });
    expect(v1.status).toBe(200);
    const { html: matched, text } = v1.body.scraped_content as { html: string; text: string };
    expect(matched.split('\n')).toEqual(Array.from({ length: 300 }, (_, i) => `<a href="/p/${i}">Link ${i}${i === 299 ? '' : ' '}</a>`));
    expect(text.split('\n').map((t) => t.trim())).toEqual(expected.map((l) => l.text));
  });

  it('afterwards the scraper-worker still serves', async () => {
    const res = await post('/web-scrapper/', { url: `${site.url}/fine` });
    expect([res.status, res.body.text_content]).toEqual([200, expect.stringContaining('Still serving pages')]);
    expectAlive();
  });
});

describe('hostile documents', () => {
  it.each([
    ['/zip-bomb.docx', 'docx', /compression ratio above 100:1/],
    ['/pixel-bomb.png', 'png', /30000x30000 pixels/],
    ['/pdf-bomb.pdf', 'pdf', /exceeds a processing limit/],
    ['/million-lines.txt', 'txt', /more than 1,000,000 lines/],
    ['/corrupt-flate.pdf', 'pdf', /^the PDF is damaged: Bad encoding in flate stream$/],
    ['/page-tree-loop.pdf', 'pdf', /^the PDF is damaged: Pages tree contains circular reference\.$/],
  ])('%s fails with 400-001 inside the parse budget', async (path, type, detail) => {
    const res = await post('/documents/parse', { url: `${site.url}${path}`, type });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ requestId: expect.any(String), error: expect.stringMatching(/^400-001: /), details: [expect.stringMatching(detail)] });
    expect(res.ms).toBeLessThan(PARSE_BUDGET_MS);
  });

  it('afterwards the parser-worker still serves', async () => {
    const res = await post('/documents/parse', { url: `${site.url}/fine.txt`, type: 'txt' });
    expect([res.status, res.body.data]).toEqual([200, 'Still serving documents after the hostile ones.']);
    expectAlive();
  });
});
