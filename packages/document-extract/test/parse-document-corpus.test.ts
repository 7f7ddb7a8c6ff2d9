import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentError } from '../src/errors.js';
import { parseDocument } from '../src/parse-document.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));

// Every corpus file is scored against its reference and the MANIFEST's checks through the API
// (tests/parser-corpus-api.test.ts). These are the exact outputs that test does not pin down.
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

  it('splits .doc pages at page breaks and new-page section breaks, as its .docx twin', async () => {
    const headers = await parseDocument(read('doc/nwe-test04-headers.doc'), { output: 'plain' });
    expect(headers.pages).toBe(2);
    expect(headers.text).toMatch(/That’s it for page one\n\n=== Page Break ===\n\nThis is page two/);
    // Headers open the first page, footers close the last.
    expect(headers.text.startsWith('This is a simple header')).toBe(true);
    expect(headers.text.endsWith('The footer, with Molière, has Unicode in it.')).toBe(true);
    for (const twin of ['nwe-bigfile-01', 'nwe-test07-form']) {
      const doc = await parseDocument(read(`doc/${twin}.doc`), { output: 'markdown' });
      const docx = await parseDocument(read(`docx/${twin}.docx`), { output: 'markdown' });
      expect({ twin, pages: doc.pages }).toEqual({ twin, pages: docx.pages });
      expect(doc.pages).toBeGreaterThan(1);
    }
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
    const { text, notes, encoding } = await parseDocument(read('txt/chardet-iso-8859-1-fr.txt'), { declaredType: 'txt', output: 'plain' });
    expect(text).toContain('dépend à la fois de la durée');
    expect(notes.join('\n')).toMatch(/windows-1252/);
    expect(encoding).toBe('windows-1252');
  });

  it('removes the ANSI escapes of the man page', async () => {
    const { text } = await parseDocument(read('txt/lesskey.man'), { declaredType: 'txt', output: 'plain' });
    expect(text).not.toMatch(/\x1b|\[1m|\[0m/);
    expect(text).toContain('lesskey [-o output] [--] [input]');
  });
});
