import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentError } from '../src/errors.js';
import { parseDocument } from '../src/parse-document.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

interface ManifestEntry {
  path: string;
  type: string;
  reference: string | null;
  mustContain?: string[];
  mustNotContain?: string[];
  headerText?: string[];
  footerText?: string[];
  notesText?: string[];
  formFeeds?: number;
  encoding?: string;
}

const manifest = JSON.parse(readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { files: ManifestEntry[] };
const entries = (type: string): ManifestEntry[] => manifest.files.filter((f) => f.type === type && f.reference);
const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));

/** Word-level F1: lowercased letter/digit tokens as multisets, page-break lines excluded. */
function wordF1(candidate: string, reference: string): number {
  const tokens = (text: string): string[] => text.replace(/^=== Page Break ===$/gm, ' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const got = tokens(candidate);
  const want = tokens(reference);
  if (got.length === 0 && want.length === 0) return 1;
  const remaining = new Map<string, number>();
  for (const token of want) remaining.set(token, (remaining.get(token) ?? 0) + 1);
  let overlap = 0;
  for (const token of got) {
    const left = remaining.get(token) ?? 0;
    if (left > 0) {
      overlap++;
      remaining.set(token, left - 1);
    }
  }
  if (overlap === 0) return 0;
  const precision = overlap / got.length;
  const recall = overlap / want.length;
  return (2 * precision * recall) / (precision + recall);
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ');

describe.each(['docx', 'doc', 'txt'])('%s corpus against its references', (type) => {
  const files = entries(type);

  it(`reaches a mean word F1 of at least 0.90 (${files.length} files)`, async () => {
    const scores: string[] = [];
    let total = 0;
    for (const file of files) {
      const result = await parseDocument(read(file.path), { declaredType: type, output: 'plain' });
      const score = wordF1(result.text, read(file.reference as string).toString('utf8'));
      expect({ file: file.path, ocrPages: result.ocrPages }).toEqual({ file: file.path, ocrPages: 0 });
      total += score;
      scores.push(`${file.path.padEnd(40)} F1 ${score.toFixed(3)}  pages ${result.pages}`);
    }
    const mean = total / files.length;
    console.log(`${type}: mean F1 ${mean.toFixed(3)}\n${scores.join('\n')}`);
    expect(mean).toBeGreaterThanOrEqual(0.9);
  });

  it('meets the MANIFEST checks (headers, footers, notes, must / must-not contain)', async () => {
    for (const file of files) {
      const { text } = await parseDocument(read(file.path), { declaredType: type, output: 'plain' });
      const flat = normalise(text);
      // notesText holds footnotes, which the references leave out and we append after the body.
      for (const expected of [...(file.headerText ?? []), ...(file.footerText ?? []), ...(file.notesText ?? []), ...(file.mustContain ?? [])]) {
        expect({ file: file.path, contains: flat.includes(normalise(expected)), expected }).toEqual({ file: file.path, contains: true, expected });
      }
      for (const forbidden of file.mustNotContain ?? []) {
        expect({ file: file.path, contains: flat.includes(forbidden), forbidden }).toEqual({ file: file.path, contains: false, forbidden });
      }
    }
  });
});

describe('corpus specifics', () => {
  it('places headers before the body and footers after it', async () => {
    const { text } = await parseDocument(read('docx/nwe-test04-headers.docx'), { output: 'plain' });
    const header = text.indexOf('This is a simple header');
    const body = text.indexOf('This is a fairly simple word document');
    const footer = text.indexOf('The footer, with Molière');
    expect(header).toBeGreaterThanOrEqual(0);
    expect(header).toBeLessThan(body);
    expect(body).toBeLessThan(footer);
  });

  it('excludes comments from .docx and .doc', async () => {
    const docx = await parseDocument(read('docx/mammoth-comments.docx'), { output: 'plain' });
    expect(docx.text).toContain('Ouch');
    expect(docx.text).not.toContain('A tachyon walks into a bar');
    const doc = await parseDocument(read('doc/tika-comment.doc'), { output: 'plain' });
    expect(doc.text.trim()).toBe('Here is some text.');
  });

  it('shows tracked changes in their current state', async () => {
    for (const file of ['docx/nwe-test01-tracked.docx', 'doc/nwe-test01-tracked.doc']) {
      const { text } = await parseDocument(read(file), { output: 'plain' });
      expect(text).toContain('This text has been inserted');
      expect(text).not.toContain('This text has been deleted');
      expect(text).toContain('😀');
    }
  });

  it('appends footnotes after the body (the reference leaves them out)', async () => {
    const { text } = await parseDocument(read('docx/mammoth-footnotes.docx'), { output: 'plain' });
    expect(text).toBe('Ouch[1].[2]\n\n[1] A tachyon walks into a bar.\n\n[2] Fin.');
    const markdown = await parseDocument(read('docx/mammoth-footnotes.docx'), { output: 'markdown' });
    expect(markdown.text).toBe('Ouch[^1].[^2]\n\n[^1]: A tachyon walks into a bar.\n\n[^2]: Fin.');
  });

  it('reads the text box, the 2x2 table and Strict OOXML', async () => {
    expect((await parseDocument(read('docx/mammoth-text-box.docx'), { output: 'plain' })).text).toContain('Datum plane');
    expect((await parseDocument(read('docx/mammoth-tables.docx'), { output: 'plain' })).text).toBe('Above\n\nTop left\tTop right\nBottom left\tBottom right\n\nBelow');
    expect((await parseDocument(read('docx/mammoth-tables.docx'), { output: 'markdown' })).text).toMatch(/\| Top left +\| Top right +\|/);
    expect((await parseDocument(read('docx/mammoth-strict-format.docx'), { output: 'plain' })).text).toBe('Test');
  });

  it('splits .docx pages only at explicit page breaks', async () => {
    const rendered = await parseDocument(read('docx/pydocx-rendered-page-breaks.docx'), { output: 'plain' });
    expect(rendered.pages).toBe(1);
    expect(rendered.text).toContain('Page break here>><<followed by more text.');
    const explicit = await parseDocument(read('docx/nwe-test04-headers.docx'), { output: 'plain' });
    expect(explicit.pages).toBe(2);
    expect(explicit.text).toMatch(/That’s it for page one\n\n=== Page Break ===\n\nThis is page two/);
  });

  it('shows odd and even headers when the settings ask for them', async () => {
    const { text } = await parseDocument(read('docx/pydocx-odd-even-headers.docx'), { output: 'plain' });
    expect(text.startsWith('Odd page header.\n\nEven page header.')).toBe(true);
  });

  it('refuses the encrypted .docx with 400-001', async () => {
    const failure = parseDocument(read('docx/tika-protected-passtika.docx'), { declaredType: 'docx', output: 'plain' });
    await expect(failure).rejects.toBeInstanceOf(DocumentError);
    await expect(failure).rejects.toMatchObject({ code: '400-001', message: 'Password-protected documents are not supported' });
  });

  it('turns the 26 form feeds of RFC 2965 into page-break markers', async () => {
    const { text, pages } = await parseDocument(read('txt/rfc2965.txt'), { declaredType: 'txt', output: 'plain' });
    expect(pages).toBe(27);
    expect(text.match(/\n\n=== Page Break ===\n\n/g)).toHaveLength(26);
    expect(text).not.toContain('\f');
  });

  it('decodes the Latin-1 file as windows-1252 and says so', async () => {
    const { text, notes } = await parseDocument(read('txt/chardet-iso-8859-1-fr.txt'), { declaredType: 'txt', output: 'plain' });
    expect(text).toContain('dépend à la fois de la durée');
    expect(notes.join('\n')).toMatch(/windows-1252/);
  });

  it('removes the ANSI escapes of the man page', async () => {
    const { text } = await parseDocument(read('txt/lesskey.man'), { declaredType: 'txt', output: 'plain' });
    expect(text).not.toMatch(/\x1b|\[1m|\[0m/);
    expect(text).toContain('lesskey [-o output] [--] [input]');
  });
});
