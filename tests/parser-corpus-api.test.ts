import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { judgeText } from '../packages/document-extract/src/pdf/text-quality.js';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { filesUnder, startPageServer } from './support/page-server.js';
import { REPO_ROOT, startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, replyBufferShrunk, testPrefix, watchReplyBufferShrinking } from './support/redis.js';
import { pagesOf, wordF1 } from './support/word-f1.js';
import { reportFigures } from './support/figures.js';

/**
 * Every file of the document corpus (../shared/corpus/docs) parsed through the API: a local
 * server hosts the files, the gateway takes the requests, a real parser-worker process (two
 * parse threads, its shared OCR pool) parses them, and the status endpoint gives the results,
 * which are compared with the references (word-level F1) and the MANIFEST's checks.
 *
 * This is the corpus test: OCR-heavy files are read here only (the library tests keep the
 * checks this one cannot make). Scoring choices, where a reference does not say what we output:
 * - pdf/TAMReview.pdf: pages 2-22 use subset fonts without a Unicode map, so pdftotext's
 *   reference for them is control characters, and we OCR them. It is scored page by page, the
 *   reference pages the parser's own text judge (judgeText) rates unreadable are left out of
 *   the F1, and those pages are checked by key phrases and OCR confidence instead.
 * - Files with `notesText` (footnotes): the references leave footnotes out, and we append them
 *   after the body on purpose (README): they are scored against reference + notesText.
 * - docx/doc pages: a Word file stores no layout, so pages are split at explicit page breaks
 *   only; the MANIFEST's counts (from LibreOffice's layout) are an upper bound, and a .doc and
 *   its .docx twin must agree.
 */
const DOCS = path.resolve(REPO_ROOT, '../shared/corpus/docs');
const PAGE_BREAK = '\n\n=== Page Break ===\n\n';

interface ManifestEntry {
  path: string;
  type: 'pdf' | 'docx' | 'doc' | 'image' | 'txt';
  pages?: number;
  reference: string | null;
  expected?: string;
  encoding?: string;
  mustContain?: string[];
  mustNotContain?: string[];
  headerText?: string[];
  footerText?: string[];
  notesText?: string[];
}

interface StatusRecord {
  requestId: string;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  type: string;
  data?: string;
  pages?: number;
  encoding?: string;
  error?: string;
  details?: string[];
}

const manifest = JSON.parse(fs.readFileSync(path.join(DOCS, 'MANIFEST.json'), 'utf8')) as { files: ManifestEntry[] };
const files = manifest.files;
const reference = (file: ManifestEntry) => fs.readFileSync(path.join(DOCS, file.reference!), 'utf8');
const flat = (text: string) => text.replace(/\s+/g, ' ');
/** The MANIFEST's names for the decoders we report (its "latin-1" file is read as windows-1252, its "ascii" ones as utf-8). */
const ENCODINGS: Record<string, string> = { 'latin-1': 'windows-1252', ascii: 'utf-8', 'utf-8': 'utf-8' };

const prefix = testPrefix('corpus');
let h: GatewayHarness;
let worker: ServiceProcess;
let server: Awaited<ReturnType<typeof startPageServer>>;
let account: TestAccount;
let workerStdout = '';
let workerStderr = '';
const results = new Map<string, StatusRecord & { seconds: number }>();
/** The worker's "document parsed" log lines by file: the operator notes (which pages were OCR'd, at what confidence). */
const notes = new Map<string, string[]>();

beforeAll(async () => {
  // Records of a few MB are read here (the 352-page book): see replyBufferShrunk.
  watchReplyBufferShrinking();
  server = await startPageServer({}, filesUnder(DOCS));
  // Submits answer 202 at once: every file is then followed on the status endpoint.
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0' });
  worker = startService('parser-worker', serviceEnv(prefix, { PARSER_CONCURRENCY: '2', LOG_LEVEL: 'info' }));
  worker.child.stdout!.on('data', (chunk: Buffer) => (workerStdout += chunk.toString()));
  worker.child.stderr!.on('data', (chunk: Buffer) => (workerStderr += chunk.toString()));
  await worker.waitFor(/parser-worker ready/);
  account = await h.account('corpus-user');
  await h.stores.accounts.setRateLimit(account.accountId, 100_000);

  const api = (route: string, init: RequestInit = {}) =>
    fetch(`${h.url}${route}`, { ...init, headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey } }).then((r) => r.json() as Promise<StatusRecord>);
  // The slowest first (21 OCR pages), so that the rest is parsed beside it.
  const ordered = [...files].sort((a, b) => Number(b.path === 'pdf/TAMReview.pdf') - Number(a.path === 'pdf/TAMReview.pdf'));
  const started = Date.now();
  const pending = new Map<string, ManifestEntry>();
  for (const file of ordered) {
    // The declared type is the file's extension, as a client would send it (jpg, tif, heic, man → txt).
    const extension = path.extname(file.path).slice(1).toLowerCase();
    const type = file.type === 'txt' ? 'txt' : extension;
    const submitted = await api('/documents/parse', { method: 'POST', body: JSON.stringify({ url: `${server.url}/${file.path}`, type }) });
    expect(submitted).toMatchObject({ status: 'PROCESSING', requestId: expect.any(String) });
    pending.set(submitted.requestId, file);
  }
  while (pending.size > 0) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const [id, file] of pending) {
      const record = await api(`/documents/status/${id}`);
      if (record.status === 'PROCESSING') continue;
      results.set(file.path, { ...record, seconds: (Date.now() - started) / 1000 });
      pending.delete(id);
    }
    if (Date.now() - started > 900_000) throw new Error(`not finished after 15 minutes: ${[...pending.values()].map((f) => f.path).join(', ')}`);
  }
  const byRequest = new Map([...results].map(([file, record]) => [record.requestId, file]));
  for (const line of workerStdout.split('\n')) {
    if (!line.includes('"document parsed"')) continue;
    const entry = JSON.parse(line) as { requestId: string; notes: string[] };
    notes.set(byRequest.get(entry.requestId)!, entry.notes);
  }
}, 960_000);

afterAll(async () => {
  await worker?.kill();
  await h?.stop();
  await server?.close();
  await deleteKeysWithPrefix(prefix);
  await replyBufferShrunk();
});

const completed = (type: string) => files.filter((f) => f.type === type && !f.expected);
const text = (file: ManifestEntry) => {
  const record = results.get(file.path)!;
  expect({ file: file.path, status: record.status, error: record.error }).toEqual({ file: file.path, status: 'COMPLETED', error: undefined });
  return record.data!;
};

/** The file's score, with the two scoring choices described at the top. */
function score(file: ManifestEntry): number {
  const ours = text(file);
  if (file.path === 'pdf/TAMReview.pdf') {
    const theirs = pagesOf(reference(file));
    const mine = pagesOf(ours);
    const readable = theirs.map((page, i) => i).filter((i) => judgeText(theirs[i].split('\n')) !== 'unreadable');
    // Pages 1 and 23 have a usable text layer in the reference.
    expect(readable).toEqual([0, 22]);
    return wordF1(readable.map((i) => mine[i]).join('\n'), readable.map((i) => theirs[i]).join('\n'));
  }
  return wordF1(ours, [reference(file), ...(file.notesText ?? [])].join('\n'));
}

describe('the corpus through the API', () => {
  it.each(['pdf', 'docx', 'doc', 'image', 'txt'])('%s: every file COMPLETED with a mean word F1 of at least 0.90', (type) => {
    const scored = completed(type).map((file) => ({ file, f1: score(file) }));
    const mean = scored.reduce((sum, s) => sum + s.f1, 0) / scored.length;
    reportFigures(
      `${type}: mean word F1 ${mean.toFixed(3)} over ${scored.length} files\n` +
        scored.map(({ file, f1 }) => `  ${file.path.padEnd(40)} F1 ${f1.toFixed(3)}  pages ${results.get(file.path)!.pages}  done at ${results.get(file.path)!.seconds.toFixed(0)} s`).join('\n'),
    );
    expect(scored.length).toBeGreaterThan(0);
    expect(mean).toBeGreaterThanOrEqual(0.9);
  });

  it('reports the kind found in the bytes', () => {
    const kinds: Record<string, string[]> = { pdf: ['pdf'], docx: ['docx'], doc: ['doc'], image: ['jpeg', 'png', 'tiff', 'heic'], txt: ['txt'] };
    for (const file of files.filter((f) => !f.expected)) expect({ file: file.path, ok: kinds[file.type].includes(results.get(file.path)!.type) }).toEqual({ file: file.path, ok: true });
  });

  it('gives PDFs, images and text files their pages, joined by page-break markers', () => {
    for (const file of files.filter((f) => ['pdf', 'image', 'txt'].includes(f.type) && !f.expected)) {
      const record = results.get(file.path)!;
      const markers = text(file).split(PAGE_BREAK).length - 1;
      expect({ file: file.path, pages: record.pages, markers }).toEqual({ file: file.path, pages: file.pages, markers: (file.pages ?? 1) - 1 });
    }
  });

  it('splits Word files at their explicit page breaks: .doc and .docx twins agree', () => {
    for (const file of files.filter((f) => (f.type === 'docx' || f.type === 'doc') && !f.expected)) {
      const record = results.get(file.path)!;
      expect(record.pages).toBeLessThanOrEqual(file.pages!);
      expect(text(file).split(PAGE_BREAK)).toHaveLength(record.pages!);
      const twin = file.type === 'doc' ? results.get(`${file.path}x`.replace(/^doc\//, 'docx/')) : undefined;
      if (twin) expect({ file: file.path, pages: record.pages }).toEqual({ file: file.path, pages: twin.pages });
    }
    // The one file whose breaks are all explicit: both formats give the MANIFEST's 2 pages.
    expect(results.get('doc/nwe-test04-headers.doc')!.pages).toBe(2);
    expect(results.get('docx/nwe-test04-headers.docx')!.pages).toBe(2);
  });

  it('meets the MANIFEST checks: must / must-not contain, headers, footers, footnotes', () => {
    for (const file of files.filter((f) => !f.expected)) {
      const ours = flat(text(file));
      for (const expected of [...(file.mustContain ?? []), ...(file.headerText ?? []), ...(file.footerText ?? []), ...(file.notesText ?? [])]) {
        expect({ file: file.path, expected, found: ours.includes(flat(expected)) }).toEqual({ file: file.path, expected, found: true });
      }
      for (const forbidden of file.mustNotContain ?? []) expect({ file: file.path, forbidden, found: ours.includes(forbidden) }).toEqual({ file: file.path, forbidden, found: false });
    }
  });

  it('leaves comments out and shows tracked changes in their current state', () => {
    expect(text(files.find((f) => f.path === 'doc/tika-comment.doc')!).trim()).toBe('Here is some text.');
    for (const file of ['docx/nwe-test01-tracked.docx', 'doc/nwe-test01-tracked.doc']) {
      const ours = text(files.find((f) => f.path === file)!);
      expect(ours).toContain('This text has been inserted');
      expect(ours).not.toContain('This text has been deleted');
    }
  });

  it('refuses the password-protected PDF and .docx with 400-001, saying why', () => {
    for (const file of files.filter((f) => f.expected)) {
      const record = results.get(file.path)!;
      expect({ file: file.path, status: record.status, error: record.error?.slice(0, 9) }).toEqual({ file: file.path, status: 'FAILED', error: '400-001: ' });
      expect([record.error, ...record.details!].join(' ')).toMatch(/password/i);
    }
    // The detected kind, not only the declared type, is on the failed record.
    expect(results.get('docx/tika-protected-passtika.docx')!.type).toBe('docx');
  });

  it('says which decoder read each text file', () => {
    for (const file of completed('txt')) expect({ file: file.path, encoding: results.get(file.path)!.encoding }).toEqual({ file: file.path, encoding: ENCODINGS[file.encoding!] });
    for (const file of files.filter((f) => f.type !== 'txt' && !f.expected)) expect(results.get(file.path)!).not.toHaveProperty('encoding');
  });
});

describe('OCR through the API', () => {
  it('reads the unmapped pages of TAMReview.pdf by OCR, confidently and in full', () => {
    const pages = pagesOf(text(files.find((f) => f.path === 'pdf/TAMReview.pdf')!));
    const ocrNotes = notes.get('pdf/TAMReview.pdf')!.filter((n) => /OCR \(text without a usable character mapping\)/.test(n));
    expect(ocrNotes.map((n) => Number(/^page (\d+)/.exec(n)![1]))).toEqual(Array.from({ length: 21 }, (_, i) => i + 2));
    // Typeset pages are read once, upright, at a high mean word confidence.
    for (const note of ocrNotes) expect(Number(/at 0° (\d+)%$/.exec(note)?.[1])).toBeGreaterThanOrEqual(85);
    for (let page = 2; page <= 22; page++) expect(flat(pages[page - 1])).toContain('Overview of the Technology Acceptance Model: Origins, Developments and Future Directions');
    const phrases: Array<[number, string]> = [
      [2, 'User acceptance of technology'],
      [3, 'Original TAM proposed by Fred Davis'],
      [12, 'Replicating TAM and testing its possible limitations'],
      [17, 'Limitations in the methodology used for testing the TAM model'],
      [22, 'Appendix A'],
    ];
    for (const [page, phrase] of phrases) expect({ page, found: flat(pages[page - 1]).includes(phrase) }).toEqual({ page, found: true });
  });

  it('OCRs scanned pages only, each turned upright', () => {
    // Page 4 has a real text layer; page 2's image (81 MP) is over the decoding limit, and says so.
    const mixed = notes.get('pdf/multipage-mixed.pdf')!;
    expect(mixed.filter((n) => /OCR/.test(n)).map((n) => Number(/^page (\d+)/.exec(n)?.[1]))).toEqual([1, 3, 5, 6]);
    expect(mixed.filter((n) => /^page 2: .*image over 30 megapixels/.test(n))).toHaveLength(1);
    // The same page turned 0/90/180/270 degrees: each is read the right way up.
    const cardinal = notes.get('pdf/cardinal-scanned-rotated.pdf')!;
    expect(cardinal.map((n) => /kept (\d+)°|at (\d+)° \d+%$/.exec(n)?.slice(1).find(Boolean))).toEqual(['0', '270', '180', '90']);
    for (const page of pagesOf(results.get('pdf/cardinal-scanned-rotated.pdf')!.data!)) expect(page).toContain('LinnSequencer');
    expect(notes.get('pdf/tracemonkey.pdf')).toEqual([]);
    // A skewed scan and a photo turned by its EXIF orientation.
    expect(wordF1(results.get('image/testRotated+10.png')!.data!, reference(files.find((f) => f.path === 'image/testRotated+10.png')!))).toBeGreaterThan(0.95);
    expect(results.get('image/simple-90.jpg')!.data!.trim()).toBe('Tesseract.js');
  });

  it('keeps tesseract’s own messages out of the JSON log', () => {
    const lines = workerStdout.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(files.length);
    for (const line of lines) expect({ line, json: (() => { try { return typeof JSON.parse(line) === 'object'; } catch { return false; } })() }).toEqual({ line, json: true });
    expect(workerStderr).not.toMatch(/diacritics|Estimating resolution|Invalid resolution/);
  });
});
