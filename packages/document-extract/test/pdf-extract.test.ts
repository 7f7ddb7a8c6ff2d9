import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { DocumentError } from '../src/errors.js';
import { extractPdf } from '../src/pdf/index.js';
import { checkStreamBudget, PDF_LIMITS } from '../src/pdf/stream-budget.js';
import type { ExtractOptions } from '../src/types.js';
import { corruptFlatePdf, flateBombPdf, handWrittenPdf, pageListedManyTimesPdf, selfReferencingPageTreePdf } from '../../../tests/support/hand-written-pdf.js';
import { threadCpuMs } from '../../../tests/support/cpu-time.js';
import { reportFigures } from '../../../tests/support/figures.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');
const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));
const plain: ExtractOptions = { output: 'plain' };

async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DocumentError);
  return error as DocumentError;
}

describe('extractPdf: opening', () => {
  it('refuses a user-password PDF with 400-001 and a detail about the password', async () => {
    const error = await failure(extractPdf(read('pdf/issue6010_1-encrypted.pdf'), plain));
    expect(error.code).toBe('400-001');
    expect(error.message).toBe('Password-protected PDFs are not supported');
    expect(error.details.join(' ')).toMatch(/password/i);
  });

  it('extracts a PDF protected by an owner password only, and writes fake-bold text once', async () => {
    const { pages } = await extractPdf(read('pdf/bug900822-owner-password.pdf'), plain);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toContain('Pdf Test 1');
    // The fifth line is drawn three times, a fraction of a point apart.
    expect(pages[0].split('\n').filter((l) => l === 'Test test test test test test')).toHaveLength(6);
  });

  it('fails a truncated PDF (the first half of a real one) with 400-001, fast', async () => {
    for (const file of ['pdf/tracemonkey.pdf', 'pdf/TAMReview.pdf']) {
      const bytes = read(file);
      const started = threadCpuMs();
      const error = await failure(extractPdf(bytes.subarray(0, Math.floor(bytes.length / 2)), plain));
      expect(error.code).toBe('400-001');
      expect(error.details.join(' ')).toMatch(/truncated|could not be read/);
      expect(threadCpuMs() - started).toBeLessThan(5_000);
    }
  });

  it('fails a content stream that does not inflate, and a page tree that loops, with 400-001 and the reason (issue 24: 500-001)', async () => {
    const cases: Array<[Buffer, string]> = [
      [corruptFlatePdf(), 'the PDF is damaged: Bad encoding in flate stream'],
      [selfReferencingPageTreePdf('self'), 'the PDF is damaged: Pages tree contains circular reference.'],
      [selfReferencingPageTreePdf('cycle'), 'the PDF is damaged: Pages tree contains circular reference.'],
    ];
    for (const [bytes, detail] of cases) {
      const error = await failure(extractPdf(bytes, plain));
      expect([error.code, error.message, error.details]).toEqual(['400-001', 'Invalid PDF file', [detail]]);
    }
  });

  it('fails bytes that only start like a PDF with 400-001', async () => {
    const error = await failure(extractPdf(Buffer.from('%PDF-1.7\nthis is not a PDF body\n%%EOF\n'), plain));
    expect(error.code).toBe('400-001');
    expect(error.details[0]).toMatch(/could not be read/);
  });

  it('does not detach or change the caller’s buffer', async () => {
    const bytes = read('pdf/pdf20-utf8-test.pdf');
    const copy = Buffer.from(bytes);
    await extractPdf(bytes, plain);
    expect(bytes.equals(copy)).toBe(true);
  });
});

/** A one-stream PDF with the given filter and raw (encoded) data. */
function pdfWithStream(filter: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`%PDF-1.1\n4 0 obj\n<< /Length ${data.length} /Filter /${filter} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1')]);
}

/**
 * An LZW bomb: after one literal "A", every code is the one being defined (the previous string
 * plus its first byte), so each emits one byte more than the last: ~7.4 MB per 6 KB cycle.
 */
function lzwBomb(cycles: number): Buffer {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  const emit = (code: number, width: number) => {
    acc = acc * 2 ** width + code;
    bits += width;
    while (bits >= 8) {
      out.push(Math.floor(acc / 2 ** (bits - 8)) & 255);
      bits -= 8;
      acc %= 2 ** bits;
    }
  };
  // The decoder widens codes when its next free code + 1 reaches 512, 1024, 2048 (early change).
  const width = (next: number) => (next + 1 >= 2048 ? 12 : next + 1 >= 1024 ? 11 : next + 1 >= 512 ? 10 : 9);
  for (let c = 0; c < cycles; c++) {
    emit(256, c === 0 ? 9 : 12);
    emit(65, 9);
    for (let code = 258; code < 4094; code++) emit(code, width(code - 1 < 258 ? 258 : code));
  }
  emit(257, 12);
  if (bits > 0) out.push((acc * 2 ** (8 - bits)) & 255);
  return Buffer.from(out);
}

describe('extractPdf: PDF bombs (decoded size and text operators are capped before pdf.js runs)', () => {
  const exceedsLimit = (error: DocumentError) => {
    expect(error.code).toBe('400-001');
    expect(error.message).toBe('The document exceeds a processing limit');
    expect(error.details.join(' ')).toMatch(/exceeds a processing limit/);
  };

  it('refuses 1.2 GB of spaces in one 1.2 MB FlateDecode content stream, fast and without inflating it', async () => {
    const bomb = flateBombPdf('BT /F1 11 Tf 72 700 Td (start) Tj ET\n', ' '.repeat(1 << 20), 1200);
    expect(bomb.length).toBeLessThan(1.5 * 1024 * 1024);
    const rssBefore = process.memoryUsage().rss;
    const started = threadCpuMs();
    const error = await failure(extractPdf(bomb, plain));
    exceedsLimit(error);
    expect(error.details.join(' ')).toMatch(/a stream decodes to more than 32 MB/);
    // Before the cap this took 27 s and 4 GB.
    expect(threadCpuMs() - started).toBeLessThan(3_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
  });

  it('refuses a page tree listing one page 100,000 times at the second listing, instead of reading it 100,000 times', async () => {
    const claims = pageListedManyTimesPdf('The only page there is.', 100_000);
    expect(claims.length).toBeLessThan(700 * 1024);
    const started = threadCpuMs();
    const error = await failure(extractPdf(claims, plain));
    expect([error.code, error.message, error.details]).toEqual(['400-001', 'Invalid PDF file', ["the PDF's page tree lists the same page more than once (page 2 is page 1 again, of 100,000 claimed)"]]);
    // Before: ~80 pages a second, the job's 600 s budget ran out at page ~45,000.
    expect(threadCpuMs() - started).toBeLessThan(5_000);
    // The same page listed once is an ordinary document.
    expect((await extractPdf(pageListedManyTimesPdf('The only page there is.', 1), plain)).pages).toEqual(['The only page there is.']);
  });

  it('refuses 50 MB of text operators packed into ~160 KB', async () => {
    const bomb = flateBombPdf('', 'BT /F1 11 Tf 72 700 Td (x) Tj ET\n'.repeat(32_768), 50);
    expect(bomb.length).toBeLessThan(200 * 1024);
    const started = threadCpuMs();
    exceedsLimit(await failure(extractPdf(bomb, plain)));
    // Before the cap: 42 s, then "Maximum call stack size exceeded" (500-001).
    expect(threadCpuMs() - started).toBeLessThan(3_000);
  });

  it('refuses a page drawing more than 100,000 pieces of text, even when it decodes to only 3.3 MB', async () => {
    const bomb = flateBombPdf('', 'BT /F1 11 Tf 72 700 Td (x) Tj ET\n'.repeat(1000), PDF_LIMITS.streamTextOperators / 1000 + 1);
    const error = await failure(extractPdf(bomb, plain));
    exceedsLimit(error);
    expect(error.details[0]).toMatch(/a page draws more than 100,000 pieces of text/);
    // One short of the limit is read (it is slow, not hostile).
    const heavy = await extractPdf(flateBombPdf('BT /F1 11 Tf 72 700 Td (heavy) Tj ET\n', 'BT /F1 11 Tf 72 700 Td (x) Tj ET\n'.repeat(1000), 99), plain);
    expect(heavy.pages[0]).toContain('heavy');
  }, 30_000);

  it('counts a stream once per page that draws it', async () => {
    // 90,000 operators are under the page limit; 25 pages drawing them are over the document's 2,000,000.
    const shared = flateBombPdf('', 'BT /F1 11 Tf 72 700 Td (x) Tj ET\n'.repeat(1000), 90, 25);
    const started = threadCpuMs();
    const error = await failure(extractPdf(shared, plain));
    exceedsLimit(error);
    expect(error.details[0]).toMatch(/its pages draw more than 2,000,000 pieces of text/);
    expect(threadCpuMs() - started).toBeLessThan(3_000);
  });

  /** The detail checkStreamBudget refuses a file with, or 'accepted'. */
  const refusal = (pdf: Buffer, limits = PDF_LIMITS): string => {
    try {
      checkStreamBudget(pdf, limits);
      return 'accepted';
    } catch (error) {
      expect(error).toBeInstanceOf(DocumentError);
      return (error as DocumentError).details.join(' ');
    }
  };

  it('decodes LZW, RunLength and filter chains with the same caps', () => {
    const lzw = lzwBomb(6);
    expect(lzw.length).toBeLessThan(40 * 1024);
    expect(checkStreamBudget(pdfWithStream('LZWDecode', lzwBomb(1))).decodedBytes).toBe(1 + ((4094 - 258) * (4094 - 258 + 3)) / 2);
    expect(refusal(pdfWithStream('LZWDecode', lzw))).toMatch(/a stream decodes to more than 32 MB/);
    // RunLength: 129 then a byte repeats it 128 times.
    const runs = Buffer.alloc(600 * 1024);
    for (let i = 0; i < runs.length; i += 2) [runs[i], runs[i + 1]] = [129, 0x20];
    expect(refusal(pdfWithStream('RunLengthDecode', runs))).toMatch(/a stream decodes to more than 32 MB/);
    // Deflate inside deflate: the outer layer is small, the inner one is the bomb.
    const inner = flateBombPdf('', ' '.repeat(1 << 20), 40);
    const innerStream = inner.subarray(inner.indexOf('stream\n') + 7, inner.lastIndexOf('\nendstream'));
    const nested = Buffer.concat([Buffer.from('%PDF-1.4\n4 0 obj\n<< /Filter [/FlateDecode /FlateDecode] >>\nstream\n'), deflateSync(innerStream), Buffer.from('\nendstream\nendobj\n%%EOF\n')]);
    expect(refusal(nested)).toMatch(/a stream decodes to more than 32 MB/);
  });

  it('caps all streams together per document', () => {
    const pdf = flateBombPdf('', ' '.repeat(1 << 20), 3, 4);
    expect(checkStreamBudget(pdf)).toMatchObject({ decodedBytes: 4 * 3 * (1 << 20), largestStream: 3 * (1 << 20) });
    expect(refusal(pdf, { ...PDF_LIMITS, documentBytes: 10 * (1 << 20) })).toMatch(/its streams decode to more than 10 MB/);
  });
});

describe('extractPdf: text', () => {
  it('reads a generated 120-page PDF in well under 20 s, page by page, with progress', async () => {
    const pages = Array.from({ length: 120 }, (_, p) => Array.from({ length: 40 }, (_, l) => `Page ${p + 1} line ${l + 1}: the quick brown fox jumps over the lazy dog.`));
    const progress: number[] = [];
    const started = Date.now();
    const out = await extractPdf(handWrittenPdf(pages), { output: 'plain', onProgress: (done, total) => progress.push(done / total) });
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(20);
    expect(out.pages).toHaveLength(120);
    expect(out.pages[0].split('\n')[0]).toBe('Page 1 line 1: the quick brown fox jumps over the lazy dog.');
    expect(out.pages[119]).toContain('Page 120 line 40: the quick brown fox jumps over the lazy dog.');
    expect(out.pages[59].split('\n')).toHaveLength(40);
    expect(progress).toHaveLength(120);
    expect(progress[119]).toBe(1);
    reportFigures(`120-page generated PDF: ${seconds.toFixed(2)} s (${(120 / seconds).toFixed(0)} pages/s)`);
  });

  it('stops between pages when the signal is aborted', async () => {
    const pages = Array.from({ length: 30 }, (_, p) => [`Page ${p + 1}`]);
    const controller = new AbortController();
    let seen = 0;
    const error = await failure(
      extractPdf(handWrittenPdf(pages), {
        output: 'plain',
        signal: controller.signal,
        onProgress: (done) => {
          seen = done;
          if (done === 3) controller.abort();
        },
      }),
    );
    expect(error.code).toBe('500-001');
    expect(seen).toBeLessThan(10);
  });

  it('reads two-column pages column by column', async () => {
    const { pages } = await extractPdf(read('pdf/tracemonkey.pdf'), plain);
    const first = pages[0];
    // The abstract (left column) is read whole before the right column starts.
    const abstractEnd = first.indexOf('have measured speedups of 10x and more for certain benchmark\nprograms.');
    const rightColumn = first.indexOf('and is used for the application logic of browser-based productivity');
    expect(abstractEnd).toBeGreaterThan(0);
    expect(rightColumn).toBeGreaterThan(abstractEnd);
    expect(first).toContain('Dynamic languages such as JavaScript are more difficult to compile than statically typed ones.');
    // Words hyphenated at line ends are mended in plain text.
    expect(first).toContain('interpreter');
    expect(first).not.toMatch(/inter-\npreter/);
  });

  it('keeps headers and footers, and places filled form fields as text', async () => {
    const { pages } = await extractPdf(read('pdf/issue17492-form.pdf'), plain);
    expect(pages[0]).toContain('First name: Lucía');
    expect(pages[0]).toContain('Last name: Garzas');
    expect(pages[0]).toContain('Job description: UX Designer');
    expect(pages[0]).toContain('Oracle, DB2');
    // Checked boxes and the chosen radio button are marked; unchecked ones are not.
    expect(pages[0]).toMatch(/☒ ?JavaScript/);
    expect(pages[0]).toMatch(/◉ ?Bachelor's degree/);
    expect(pages[0]).not.toMatch(/☒ ?TypeScript/);
    const footer = await extractPdf(read('pdf/issue14847.pdf'), plain);
    expect(footer.pages[3]).toContain('Benutzerhandbuch');
  });

  it('reads text on both pages of a PDF 2.0 file', async () => {
    const { pages } = await extractPdf(read('pdf/pdf20-page-level-output-intent.pdf'), plain);
    expect(pages).toHaveLength(2);
    expect(pages.every((p) => p.trim().length > 0)).toBe(true);
  });

  it('fails with 500-001 when a PDF needs OCR and none is available', async () => {
    const error = await failure(extractPdf(read('pdf/linn-scanned.pdf'), plain));
    expect(error.code).toBe('500-001');
    expect(error.details.join(' ')).toMatch(/OCR/);
  });
});

describe('extractPdf: markdown', () => {
  it('takes headings from the structure tree of a tagged PDF', async () => {
    const { pages } = await extractPdf(read('pdf/pdf20-utf8-test.pdf'), { output: 'markdown' });
    expect(pages[0]).toMatch(/^# PDF 2\.0 with UTF-8 test file$/m);
    expect(pages[0]).toMatch(/^## Heading Level 2$/m);
    expect(pages[0]).toMatch(/^### Heading Level 3$/m);
  });

  it('ranks font sizes into headings and reflows paragraphs', async () => {
    const { pages } = await extractPdf(read('pdf/tracemonkey.pdf'), { output: 'markdown' });
    expect(pages[0]).toMatch(/^# Trace-based Just-in-Time Type Specialization for Dynamic Languages$/m);
    expect(pages[0]).toMatch(/^#{2,4} 1\. Introduction$/m);
    expect(pages[0]).toMatch(/^#{2,4} Abstract$/m);
    // Lines of a paragraph are joined, hyphenation mended.
    expect(pages[0]).toContain('Dynamic languages such as JavaScript are more difficult to compile than statically typed ones. Since no concrete type information is available');
    expect(pages[1]).toMatch(/^- We explain an algorithm for dynamically forming trace trees/m);
  });
});
