import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOcrEngine } from '../src/ocr/index.js';
import { extractPdf } from '../src/pdf/index.js';
import type { ExtractedDocument, OcrEngine } from '../src/types.js';
import { wordF1 } from '../../../tests/support/word-f1.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

interface ManifestEntry {
  path: string;
  type: string;
  pages?: number;
  reference: string | null;
  expected?: string;
  mustContain?: string[];
  mustNotContain?: string[];
}

const manifest = JSON.parse(readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { files: ManifestEntry[] };
/** Every PDF with a reference, except those that must fail (their reference is for information only). */
const files = manifest.files.filter((f) => f.type === 'pdf' && f.reference && !f.expected);
const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));
const withoutPageBreaks = (text: string) => text.replace(/^=== Page Break ===$/gm, ' ');

let ocr: OcrEngine;
const results = new Map<string, { doc: ExtractedDocument; f1: number; seconds: number }>();

// Each file is extracted once (scanned pages are OCR'd once); the tests below read the results.
beforeAll(async () => {
  ocr = await createOcrEngine({ workers: 2 });
  for (const file of files) {
    const started = Date.now();
    const doc = await extractPdf(read(file.path), { output: 'plain', ocr });
    const f1 = wordF1(doc.pages.join('\n'), withoutPageBreaks(read(file.reference!).toString('utf8')));
    results.set(file.path, { doc, f1, seconds: (Date.now() - started) / 1000 });
  }
}, 600_000);

afterAll(async () => {
  await ocr?.close();
});

describe(`PDF corpus (${files.length} files) against the references`, () => {
  it('reaches a mean word F1 of at least 0.90', () => {
    const lines = files.map((f) => {
      const r = results.get(f.path)!;
      return `${f.path.padEnd(42)} F1 ${r.f1.toFixed(3)}  pages ${String(r.doc.pages.length).padStart(3)}  ${r.seconds.toFixed(1)} s`;
    });
    const mean = [...results.values()].reduce((s, r) => s + r.f1, 0) / results.size;
    console.log(`pdf: mean word F1 ${mean.toFixed(3)}\n${lines.join('\n')}`);
    expect(results.size).toBe(files.length);
    expect(mean).toBeGreaterThanOrEqual(0.9);
  });

  it('gives every file its number of pages', () => {
    for (const file of files) expect({ file: file.path, pages: results.get(file.path)!.doc.pages.length }).toEqual({ file: file.path, pages: file.pages });
  });

  it('meets the MANIFEST must / must-not contain checks', () => {
    for (const file of files) {
      const text = results.get(file.path)!.doc.pages.join('\n').replace(/\s+/g, ' ');
      for (const expected of file.mustContain ?? []) expect({ file: file.path, expected, found: text.includes(expected) }).toEqual({ file: file.path, expected, found: true });
      for (const forbidden of file.mustNotContain ?? []) expect({ file: file.path, forbidden, found: text.includes(forbidden) }).toEqual({ file: file.path, forbidden, found: false });
    }
  });

  it('OCRs scanned pages only, turning each upright', () => {
    const mixed = results.get('pdf/multipage-mixed.pdf')!.doc;
    // Page 4 has a real text layer; the others are images. Page 2's is 9000x9000 pixels (81 MP),
    // over the decoding limit, so it is skipped and the page says so instead of reading as blank.
    expect(mixed.notes.filter((n) => /OCR/.test(n)).map((n) => Number(/^page (\d+)/.exec(n)?.[1]))).toEqual([1, 3, 5, 6]);
    expect(mixed.notes.filter((n) => /^page 2: .*image over 30 megapixels/.test(n))).toHaveLength(1);
    expect(mixed.ocrPages).toBe(4);
    const cardinal = results.get('pdf/cardinal-scanned-rotated.pdf')!;
    // The same page turned 0/90/180/270 degrees: each is read the right way up.
    expect(cardinal.doc.notes.map((n) => /kept (\d+)°|at (\d+)° \d+%$/.exec(n)?.slice(1).find(Boolean))).toEqual(['0', '270', '180', '90']);
    for (const page of cardinal.doc.pages) expect(page).toContain('LinnSequencer');
    expect(cardinal.doc.ocrPages).toBe(4);
    expect(results.get('pdf/tracemonkey.pdf')!.doc.notes).toEqual([]);
    expect(results.get('pdf/tracemonkey.pdf')!.doc.ocrPages).toBe(0);
  });
});
