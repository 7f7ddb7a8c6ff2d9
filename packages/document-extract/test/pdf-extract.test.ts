import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentError } from '../src/errors.js';
import { extractPdf } from '../src/pdf/index.js';
import type { ExtractOptions } from '../src/types.js';
import { handWrittenPdf } from '../../../tests/support/hand-written-pdf.js';

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
      const started = Date.now();
      const error = await failure(extractPdf(bytes.subarray(0, Math.floor(bytes.length / 2)), plain));
      expect(error.code).toBe('400-001');
      expect(error.details.join(' ')).toMatch(/truncated|could not be read/);
      expect(Date.now() - started).toBeLessThan(5_000);
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
    console.log(`120-page generated PDF: ${seconds.toFixed(2)} s (${(120 / seconds).toFixed(0)} pages/s)`);
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
