import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from '@gleaner/platform';
import { loadParserWorkerConfig, startParserWorker, type RunningService } from '@gleaner/parser-worker';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { flateBombPdf, handWrittenPdf } from './support/hand-written-pdf.js';
import { binaryNoise, CONTENT_TYPES, pixelBomb, rawZip, zipBombDocx } from './support/hostile-files.js';
import { startPageServer, streamedBody } from './support/page-server.js';
import { REPO_ROOT } from './support/processes.js';
import { deleteKeysWithPrefix, replyBufferShrunk, testPrefix, watchReplyBufferShrinking } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';
import { wordF1 } from './support/word-f1.js';
import { reportFigures } from './support/figures.js';

/** The document parser end to end: gateway, parse queue, parser-worker threads, files from a local server. */
const DOCS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
/** The structure corpus (office formats with Docling's markdown), served under /structure/. */
const STRUCTURE = path.resolve(REPO_ROOT, '../shared/corpus/docs-structure');
const prefix = testPrefix('parser');
let h: GatewayHarness;
let worker: RunningService;
let files: Awaited<ReturnType<typeof startPageServer>>;
let account: TestAccount;

const LINE = 'the quick brown fox jumps over the lazy dog.';
/** Text PDFs generated for the long-document tests, served under /generated/. */
const generated = new Map<string, Buffer>([
  ['120-pages.pdf', handWrittenPdf(Array.from({ length: 120 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: ${LINE}`)))],
  ['1500-pages.pdf', handWrittenPdf(Array.from({ length: 1500 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Sheet ${p + 1} row ${l + 1}: ${LINE}`)))],
]);
const tracemonkey = fs.readFileSync(path.join(DOCS, 'pdf/tracemonkey.pdf'));
const tracked = fs.readFileSync(path.join(DOCS, 'docx/nwe-test01-tracked.docx'));
const ordinaryParagraphs = Array.from({ length: 400_000 }, (_, i) => `<w:p><w:r><w:t>Paragraph ${i}: ${LINE}</w:t></w:r></w:p>`).join('');
/** Hostile files, served under /hostile/: each must fail cleanly and leave the worker serving. */
const hostile = new Map<string, Buffer>([
  ['zip-bomb.docx', zipBombDocx()],
  // 40 MB of ordinary XML at a normal ratio: before its cap, mammoth ran out of memory (500-001 after 26 s).
  ['huge-body.docx', rawZip([CONTENT_TYPES, { name: 'word/document.xml', data: Buffer.from(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${ordinaryParagraphs}</w:body></w:document>`) }])],
  ['pixel-bomb.png', pixelBomb()],
  ['truncated.pdf', tracemonkey.subarray(0, Math.floor(tracemonkey.length / 2))],
  // 1.2 GB of spaces in a 1.2 MB file: before its cap, COMPLETED after 27 s at 4 GB.
  ['pdf-bomb.pdf', flateBombPdf('BT /F1 11 Tf 72 700 Td (start) Tj ET\n', ' '.repeat(1 << 20), 1200)],
  // 50 MB of text operators in ~160 KB: before its cap, 500-001 "Maximum call stack size exceeded" after 42 s.
  ['operator-bomb.pdf', flateBombPdf('', 'BT /F1 11 Tf 72 700 Td (x) Tj ET\n'.repeat(32_768), 50)],
  ['damaged.docx', tracked.subarray(0, tracked.length - 200)],
  // A workbook whose sheet is 20 MB of zeros in ~20 KB.
  ['zip-bomb.xlsx', rawZip([CONTENT_TYPES, { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') }, { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(20 * 1024 * 1024) }])],
]);
/** 60 MB with no Content-Length (chunked): only counting the bytes as they arrive finds it too large. */
const HUGE = 60 * 1024 * 1024;
const hugeChunked = streamedBody(HUGE);

beforeAll(async () => {
  // Records of several MB are read here (the 1500-page document): see replyBufferShrunk.
  watchReplyBufferShrinking();
  files = await startPageServer({}, (req, res) => {
    const rel = decodeURIComponent((req.url ?? '/').slice(1));
    const made = generated.get(rel.replace(/^generated\//, ''));
    if (rel.startsWith('generated/') && made) return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(made);
    const bad = hostile.get(rel.replace(/^hostile\//, ''));
    if (rel.startsWith('hostile/') && bad) return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bad);
    if (rel === 'binary.txt') return res.writeHead(200).end(binaryNoise());
    if (rel.startsWith('structure/')) {
      const structureFile = path.join(STRUCTURE, rel.slice('structure/'.length));
      if (!structureFile.startsWith(STRUCTURE) || !fs.existsSync(structureFile)) return res.writeHead(404).end();
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(structureFile));
    }
    // Declares 60 MB and sends nothing: refused from the header alone.
    if (rel === 'huge.bin') return res.writeHead(200, { 'content-length': String(HUGE) }).end();
    if (rel === 'huge-chunked.bin') return hugeChunked.handler(req, res);
    const file = path.join(DOCS, rel);
    if (!file.startsWith(DOCS) || !fs.existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
  });
  h = await GatewayHarness.start(prefix);
  worker = await startParserWorker(loadParserWorkerConfig(serviceEnv(prefix, { PARSER_CONCURRENCY: '2' })), createLogger('parser-test', 'error'));
  account = await h.account('parser-user');
  await h.stores.accounts.setRateLimit(account.accountId, 10_000);
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await h?.stop();
  await files?.close();
  await deleteKeysWithPrefix(prefix);
  await replyBufferShrunk();
});

const parse = (body: Record<string, unknown>) => request(h.url).post('/documents/parse').set('x-api-key', account.apiKey).send(body);
const reference = (p: string) => fs.readFileSync(path.join(DOCS, `${p}.ref.txt`), 'utf8');

describe('documents through the API', () => {
  it.each([
    ['pdf/tracemonkey.pdf', 'pdf'],
    ['docx/nwe-test04-headers.docx', 'doc'],
    ['doc/nwe-test04-headers.doc', 'doc'],
    ['txt/rfc2965.txt', 'txt'],
  ])('%s answers 200 COMPLETED close to its reference', async (file, type) => {
    const res = await parse({ url: `${files.url}/${file}`, type });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('COMPLETED');
    expect(wordF1(res.body.data, reference(file))).toBeGreaterThan(0.9);
    const status = await request(h.url).get(`/documents/status/${res.body.requestId}`).set('x-api-key', account.apiKey);
    expect(status.body).toMatchObject({ requestId: res.body.requestId, status: 'COMPLETED', type: expect.any(String), createdAt: expect.any(Number) });
  }, 60_000);

  it('the declared type is a hint: a docx declared as pdf is read as docx', async () => {
    const res = await parse({ url: `${files.url}/docx/mammoth-tables.docx`, type: 'pdf' });
    expect(res.body.type).toBe('docx');
  });

  it('markdown output', async () => {
    const res = await parse({ url: `${files.url}/txt/rfc2965.txt`, type: 'txt', output: 'markdown' });
    expect(res.body.data).toMatch(/^#{2,3} /m);
    expect(res.body.data).toContain('\n\n=== Page Break ===\n\n');
  });

  it('says which decoder read a text file, in the answer and the status record', async () => {
    const res = await parse({ url: `${files.url}/txt/chardet-iso-8859-1-fr.txt`, type: 'txt' });
    expect(res.body).toMatchObject({ status: 'COMPLETED', type: 'txt', encoding: 'windows-1252' });
    expect(res.body.data).toContain('dépend à la fois de la durée');
    const status = await request(h.url).get(`/documents/status/${res.body.requestId}`).set('x-api-key', account.apiKey);
    expect(status.body).toMatchObject({ status: 'COMPLETED', encoding: 'windows-1252' });
    const pdf = await parse({ url: `${files.url}/pdf/pdf20-utf8-test.pdf` });
    expect(pdf.body).not.toHaveProperty('encoding');
  });
});

describe('office formats through the API', () => {
  it.each([
    ['xlsx/xlsx_01.xlsx', 'xlsx', 4, /^## Sheet1\n\n\| first \| second \| third \|\n\| --- \| --- \| --- \|\n\| 1 \| 5 \| 9 \|/],
    ['pptx/powerpoint_sample.pptx', 'pptx', 3, /^# Test Table Slide\n/],
    ['odt/text_document_03.odt', 'odt', 1, /^\| -+ \|/m],
    ['ods/odf_table_with_title_01.ods', 'ods', 1, /\| Year +\| Freshwater Ducks \|/],
    ['odp/odf_presentation_01.odp', 'odp', 3, /^# Second slide title$/m],
    ['epub/epub_purvis_poetry.epub', 'epub', 5, /^## Imprint$/m],
    ['html/table_01.html', 'html', 1, /^\| -+ \|/m],
  ])('%s, declared as pdf, answers 200 COMPLETED as %s in markdown, a sheet, a slide, a chapter a page', async (file, type, pages, expected) => {
    const res = await parse({ url: `${files.url}/structure/${file}`, type: 'pdf', output: 'markdown' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', type, pages });
    expect(res.body.data).toMatch(expected);
  }, 60_000);

  it('takes csv and md as declared types for text', async () => {
    const csv = await parse({ url: `${files.url}/txt/chardet-utf-8-greek.txt`, type: 'csv', output: 'markdown' });
    expect(csv.body).toMatchObject({ status: 'COMPLETED', type: 'csv', encoding: 'utf-8' });
    expect(csv.body.data).toMatch(/^\| .* \|\n\| --- /);
    const md = await parse({ url: `${files.url}/txt/rfc2965.txt`, type: 'md', output: 'markdown' });
    expect(md.body).toMatchObject({ status: 'COMPLETED', type: 'md' });
    // As written: none of the headings the .txt markdown rules make of this RFC ('markdown output' above).
    expect(md.body.data).not.toMatch(/^#{2,3} /m);
    expect(md.body.data).toContain('HTTP State Management Mechanism');
  }, 60_000);
});

describe('long documents', () => {
  it('a 120-page text PDF answers 200 COMPLETED inside the default 20 s window, its pages apart', async () => {
    const started = Date.now();
    const res = await parse({ url: `${files.url}/generated/120-pages.pdf`, type: 'pdf' });
    const seconds = (Date.now() - started) / 1000;
    // A 200 (not a 202) means the parse finished inside the gateway's wait, which defaults to 20 s.
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'COMPLETED', type: 'pdf', pages: 120 });
    expect(seconds).toBeLessThan(20);
    const pages = (res.body.data as string).split('\n\n=== Page Break ===\n\n');
    expect(pages).toHaveLength(120);
    pages.forEach((page, i) => {
      const lines = page.split('\n');
      expect(lines).toHaveLength(40);
      expect(lines[0]).toBe(`Page ${i + 1} line 1: ${LINE}`);
      expect(lines[39]).toBe(`Page ${i + 1} line 40: ${LINE}`);
    });
    reportFigures(`120-page PDF through the API: ${seconds.toFixed(2)} s`);
  }, 30_000);

  it('while a long document is PROCESSING, its status shows pagesDone of pagesTotal', async () => {
    // A gateway that answers 202 at once, on the same Redis prefix as the worker.
    const impatient = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0' });
    try {
      const submitted = await request(impatient.url).post('/documents/parse').set('x-api-key', account.apiKey).send({ url: `${files.url}/generated/1500-pages.pdf` });
      expect(submitted.status).toBe(202);
      expect(submitted.body).toMatchObject({ status: 'PROCESSING', requestId: expect.any(String) });
      const seen: Array<Record<string, unknown>> = [];
      let last: Record<string, unknown> = {};
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        last = (await request(impatient.url).get(`/documents/status/${submitted.body.requestId}`).set('x-api-key', account.apiKey)).body;
        if (last.status !== 'PROCESSING') break;
        seen.push(last);
      }
      const partial = seen.filter((b) => typeof b.pagesDone === 'number' && (b.pagesDone as number) > 0 && (b.pagesDone as number) < 1500);
      expect(partial.length).toBeGreaterThan(0);
      for (const body of partial) expect(body).toMatchObject({ requestId: submitted.body.requestId, status: 'PROCESSING', pagesTotal: 1500, message: expect.any(String) });
      const done = partial.map((b) => b.pagesDone as number);
      expect(done).toEqual([...done].sort((a, b) => a - b));
      expect(last).toMatchObject({ status: 'COMPLETED', pages: 1500 });
      expect(last).not.toHaveProperty('pagesDone');
      expect((last.data as string).split('\n\n=== Page Break ===\n\n')[1499]).toContain(`Sheet 1500 row 40: ${LINE}`);
    } finally {
      await impatient.stop();
    }
  }, 150_000);
});

describe('hostile and invalid input', () => {
  it('an encrypted PDF fails with 400-001, saying it is password-protected', async () => {
    const encrypted = await parse({ url: `${files.url}/pdf/issue6010_1-encrypted.pdf` });
    expect(encrypted.status).toBe(400);
    expect(encrypted.body.error).toMatch(/^400-001: /);
    expect(encrypted.body.details.join(' ')).toMatch(/password/i);
  }, 60_000);

  it.each([
    ['a binary file sent as txt', 'binary.txt', 'txt', /binary data/],
    ['a file declaring 60 MB in its Content-Length', 'huge.bin', undefined, /larger than 50 MB/],
    ['a 60 MB file streamed without Content-Length', 'huge-chunked.bin', undefined, /larger than 50 MB/],
  ])('%s fails with 400-001 and says why, and the worker then answers a normal document with 200', async (_name, file, type, detail) => {
    const res = await parse({ url: `${files.url}/${file}`, ...(type ? { type } : {}) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^400-001: /);
    expect(res.body.details.join(' ')).toMatch(detail);
    const status = await request(h.url).get(`/documents/status/${res.body.requestId}`).set('x-api-key', account.apiKey);
    expect(status.body).toMatchObject({ status: 'FAILED', error: res.body.error, details: res.body.details });
    const normal = await parse({ url: `${files.url}/txt/chardet-utf-8-greek.txt`, type: 'txt' });
    expect(normal.status).toBe(200);
    expect(normal.body).toMatchObject({ status: 'COMPLETED', type: 'txt', encoding: 'utf-8' });
  }, 60_000);

  it('stops reading a streamed 60 MB body at the limit', async () => {
    // The case above, seen from the server: the download was cut, not read to the end.
    const res = await parse({ url: `${files.url}/huge-chunked.bin` });
    expect(res.body.details).toEqual(['file is larger than 50 MB']);
    const served = await waitFor(() => hugeChunked.last, (l) => l.closed);
    expect(served.closed).toBe(true);
    expect(served.finished).toBe(false);
    expect(served.sent).toBeGreaterThan(50 * 1024 * 1024);
    expect(served.sent).toBeLessThan(HUGE);
  }, 60_000);

  it('validation codes: 400-004 missing url, 400-002 bad url, 400-001 type, 400-005 output, 400-003 webhook', async () => {
    expect((await parse({})).body.error).toMatch(/^400-004: /);
    expect((await parse({ url: 'nope' })).body.error).toMatch(/^400-002: /);
    expect((await parse({ url: `${files.url}/x.pdf`, type: 'exe' })).body.error).toMatch(/^400-001: /);
    expect((await parse({ url: `${files.url}/x.pdf`, output: 'html' })).body.error).toMatch(/^400-005: /);
    expect((await parse({ url: `${files.url}/x.pdf`, webhook: 'not a url' })).body.error).toMatch(/^400-003: /);
  });

  it.each([
    ['zip-bomb.docx', 'docx', /compression ratio above 100:1/],
    ['zip-bomb.xlsx', 'xlsx', /compression ratio above 100:1/],
    ['huge-body.docx', 'docx', /exceeds a processing limit: the body \(word\/document\.xml\) expands to more than 24 MB/],
    ['pixel-bomb.png', 'png', /30000x30000 pixels/],
    ['truncated.pdf', 'pdf', /truncated/],
    ['pdf-bomb.pdf', 'pdf', /exceeds a processing limit: a stream decodes to more than 32 MB/],
    ['operator-bomb.pdf', 'pdf', /exceeds a processing limit/],
  ])('%s fails cleanly with 400-001, fast, and the worker then answers a normal document with 200', async (file, type, detail) => {
    const started = Date.now();
    const res = await parse({ url: `${files.url}/hostile/${file}`, type });
    const seconds = (Date.now() - started) / 1000;
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^400-001: /);
    expect(res.body.details.join(' ')).toMatch(detail);
    // Inside the 20 s window (a 400, not a 202): every limit is checked before the heavy work.
    expect(seconds).toBeLessThan(10);
    const status = await request(h.url).get(`/documents/status/${res.body.requestId}`).set('x-api-key', account.apiKey);
    expect(status.body).toMatchObject({ status: 'FAILED', type, error: res.body.error });
    const normal = await parse({ url: `${files.url}/txt/chardet-utf-8-greek.txt`, type: 'txt' });
    expect(normal.status).toBe(200);
    expect(normal.body).toMatchObject({ status: 'COMPLETED', type: 'txt', encoding: 'utf-8' });
  }, 60_000);

  it('a failed record shows the kind found in the bytes, not the declared type', async () => {
    const res = await parse({ url: `${files.url}/hostile/damaged.docx`, type: 'pdf' });
    expect(res.status).toBe(400);
    const status = await request(h.url).get(`/documents/status/${res.body.requestId}`).set('x-api-key', account.apiKey);
    expect(status.body).toMatchObject({ status: 'FAILED', type: 'docx', error: expect.stringMatching(/^400-001: /) });
  });
});
