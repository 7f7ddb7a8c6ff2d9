import { describe, expect, it } from '@jest/globals';
import JSZip from 'jszip';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '../src/parse-document.js';
import { CONTENT_TYPES, rawZip } from '../../../tests/support/hostile-files.js';
import { cpuMs } from '../../../tests/support/cpu-time.js';
import { failure } from './document-failure.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const structure = (relative: string): Buffer => readFileSync(path.resolve(here, '../../../../shared/corpus/docs-structure', relative));
const fixture = (name: string): Buffer => readFileSync(path.resolve(here, 'fixtures/office', name));
const markdown = { output: 'markdown' } as const;
const plain = { output: 'plain' } as const;
const BREAK = '\n\n=== Page Break ===\n\n';

/** An OpenDocument package: the stored mimetype first, then content.xml. */
async function odf(mimetype: string, body: string): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('mimetype', mimetype, { compression: 'STORE' });
  zip.file(
    'content.xml',
    `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><office:body>${body}</office:body></office:document-content>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('pptx', () => {
  it('writes each slide as a page: title, text in order, lists as PowerPoint shows them, tables spread, speaker notes', async () => {
    const result = await parseDocument(structure('pptx/powerpoint_sample.pptx'), markdown);
    expect(result).toMatchObject({ kind: 'pptx', pages: 3 });
    const [first, second, third] = result.text.split(BREAK);
    expect(first).toMatch(/^# Test Table Slide\n\nWith footnote\n\n\| +\| Class1 +\| Class1 +\| Class1 +\| Class2 +\| Class2 +\| Class2 +\|\n/);
    expect(first).toMatch(/\| +\| A merged with B \| A merged with B \| C +\|/);
    expect(second).toBe("# Second slide title\n\nLet’s introduce a list\n\n- With foo\n- Bar\n- And baz things\n\nA rectangle shape with this text inside.\n\nNotes:\n\nSome notes on the second slide.");
    expect(third).toMatch(/^1\. List item4\n2\. List item5\n3\. List item6\n\n- I1\n/);
    expect(third).toMatch(/Notes:\n\nFinal notes on the third slide\.\n\nSecond line of notes\.$/);
    // Plain text: the same slides, tables as tab-separated rows.
    expect((await parseDocument(structure('pptx/powerpoint_sample.pptx'), plain)).text).toContain('R1\tTrue\tFalse\t\tFalse\tTrue\tTrue');
  });

  it('finds the slides by their relationship id whatever the order of p:sldId\'s id and r:id attributes', async () => {
    const zip = await JSZip.loadAsync(structure('pptx/powerpoint_sample.pptx'));
    const presentation = await zip.file('ppt/presentation.xml')!.async('string');
    const swapped = presentation.replace(/<p:sldId id="(\d+)" r:id="(\w+)"\/>/g, '<p:sldId r:id="$2" id="$1"/>');
    expect(swapped).not.toBe(presentation);
    zip.file('ppt/presentation.xml', swapped);
    expect(await parseDocument(await zip.generateAsync({ type: 'nodebuffer' }), markdown)).toMatchObject({ kind: 'pptx', pages: 3 });
  });

  it('leaves comments out, as for Word (SPEC), and reads shapes it does not know for their text', async () => {
    const comments = await parseDocument(structure('pptx/powerpoint_comments.pptx'), markdown);
    expect(comments.text).toContain('# Features');
    expect(comments.text).not.toContain('This is a cool feature');
    expect((await parseDocument(structure('pptx/powerpoint_unrecognized_shape.pptx'), markdown)).text).toMatch(/^# /);
  });
});

describe('odp', () => {
  it('writes each draw:page as a slide with its title frame as the heading and its notes', async () => {
    const result = await parseDocument(structure('odp/odf_presentation_01.odp'), markdown);
    expect(result).toMatchObject({ kind: 'odp', pages: 3 });
    const slides = result.text.split(BREAK);
    expect(slides[0]).toMatch(/^# Test Table Slide\n/);
    expect(slides[1]).toMatch(/^# Second slide title\n[\s\S]*- With foo\n- Bar\n- And baz things[\s\S]*Notes:\n\nSome notes on the second slide\.$/);
  });
});

describe('odt', () => {
  it('reads headings by outline level, the Title style, lists by their list style, emphasis and tables', async () => {
    const result = await parseDocument(structure('odt/text_document_01.odt'), markdown);
    expect(result.kind).toBe('odt');
    expect(result.text).toMatch(/^# Title\n\nSubtitle\n\n# heading level 1\.0\n\n\*\*Lorem Ipsum\*\* is simply dummy text/);
    // One visible list split over two text:list elements; the last item's paragraph style gives it the bullet style.
    expect(result.text).toContain('1. numbered list 1\n2. numbered list 2\n   - bullet list 2.1\n   - bullet list 2.2\n     - bullet list 2.2.1\n   - bullet list 2.3\n\n- numbered list 3\n  - bullet list 3.0.1');
    const tables = await parseDocument(structure('odt/text_document_03.odt'), markdown);
    expect(tables.text.match(/^\| -+ \|/gm)?.length).toBe(7);
  });

  it('puts footnotes after the text and leaves comments and tracked deletions out', async () => {
    const body = `<office:text><text:h text:outline-level="2">Report</text:h><text:p>Counted<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Twice.</text:p></text:note-body></text:note> ducks<office:annotation><text:p>check this</text:p></office:annotation>.</text:p><text:tracked-changes><text:changed-region><text:deletion><text:p>old words</text:p></text:deletion></text:changed-region></text:tracked-changes><text:p>A<text:s text:c="3"/>B<text:tab/>C<text:line-break/>D</text:p></office:text>`;
    const bytes = await odf('application/vnd.oasis.opendocument.text', body);
    expect((await parseDocument(bytes, markdown)).text).toBe('## Report\n\nCounted[^1] ducks.\n\nA B C\\\nD\n\n[^1]: Twice.');
    expect((await parseDocument(bytes, plain)).text).toBe('Report\n\nCounted[1] ducks.\n\nA B C\nD\n\n[1] Twice.');
  });
});

describe('epub', () => {
  it('reads the chapters in spine order, one page each, with package pictures as their alternative text', async () => {
    const result = await parseDocument(structure('epub/epub_purvis_poetry.epub'), markdown);
    expect(result.kind).toBe('epub');
    const headings = result.text.match(/^#+ .*/gm) ?? [];
    expect(headings.slice(0, 4)).toEqual(['# Poetry', '## Imprint', '## The Grave of the Slave', "## The Slave Girl’s Address to Her Mother"]);
    expect(result.text).not.toMatch(/\]\(\.\.\//);
    expect(result.pages).toBe(5);
  });

  it('refuses a book whose chapters are encrypted (DRM) and one without its container', async () => {
    const zip = await JSZip.loadAsync(structure('epub/epub_purvis_poetry.epub'));
    const chapter = Object.keys(zip.files).find((name) => name.endsWith('imprint.xhtml'))!;
    zip.file('META-INF/encryption.xml', `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="${chapter}"/></enc:CipherData></enc:EncryptedData></encryption>`);
    const drm = await failure(parseDocument(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), markdown));
    expect(drm).toMatchObject({ code: '400-001', message: 'Password-protected documents are not supported' });
    zip.remove('META-INF/container.xml');
    zip.remove('META-INF/encryption.xml');
    const broken = await failure(parseDocument(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), markdown));
    expect(broken).toMatchObject({ code: '400-001', details: ['the .epub has no META-INF/container.xml'] });
  });
});

describe('html, markdown and rtf documents', () => {
  it('reads an HTML file with its tables spread and a fragment without <html> or <body> when declared html', async () => {
    const fragment = structure('html/example_05.html');
    expect((await parseDocument(fragment, plain)).kind).toBe('txt');
    const result = await parseDocument(fragment, { declaredType: 'html', output: 'markdown' });
    expect(result.kind).toBe('html');
    expect(result.text).toMatch(/^# Omitted html and body tags\n\n\| Header 1 +\| Header 2 & 3 \(colspan\) +\| Header 2 & 3 \(colspan\) +\|/);
    expect(result.text).toMatch(/\| Row 1 & 2, Col 1 \(rowspan\) \| Row 2, Col 2 & 3 \(colspan\) \| Row 2, Col 2 & 3 \(colspan\) \|/);
  });

  it('gives a declared markdown file as written, in both outputs', async () => {
    const source = '# Notes\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- *item* with `code`\n';
    for (const output of ['markdown', 'plain'] as const) {
      expect(await parseDocument(Buffer.from(source), { declaredType: 'md', output })).toMatchObject({ kind: 'md', text: source.trimEnd() });
    }
  });

  it('reads an RTF made by LibreOffice: its table as a pipe table, its footnote (a {\\*\\footnote} group) after the text', async () => {
    const result = await parseDocument(fixture('letter.rtf'), markdown);
    expect(result).toMatchObject({ kind: 'rtf' });
    expect(result.text).toBe('Duck survey\n\nThe lake was surveyed twice.\n\n| Species | May | June |\n| --- | --- | --- |\n| Mallard | 12 | 15 |\n| Teal | 4 | 7 |\n\nClosing remarks after the table.\n\nIn May and in June.');
  });
});

describe('word structure', () => {
  it('writes the Title style as a heading, a one-cell frame table as its content, nested tables as tables', async () => {
    expect((await parseDocument(structure('docx/docx_comments.docx'), markdown)).text).toMatch(/^# Document with Comments\n/);
    expect((await parseDocument(structure('docx/tablecell.docx'), markdown)).text).toBe(
      '- Hello world1\n- Hello2\n\nSome text before\n\n| Tab1 | Tab2 | Tab3 |\n| ---- | ---- | ---- |\n| A    | B    | C    |\n| D    | E    | F    |\n\nSome text after',
    );
  });

  it('spreads merged cells and keeps one-column tables', async () => {
    const text = (await parseDocument(structure('docx/docx_rich_cells.docx'), markdown)).text;
    expect(text).toMatch(/\| Column A +\| Column B +\|\n/);
    expect(text).toMatch(/\| Cell 1 item 1 Cell 1 item 2 +\|\n\| -+ \|\n\| Cell 2 item 1 Cell 2 item 2 +\|/);
  });

  it('writes equations as LaTeX in markdown ($ inline, $$ on their own line) and as their characters in plain text', async () => {
    const equations = structure('docx/equations.docx');
    const text = (await parseDocument(equations, markdown)).text;
    expect(text).toMatch(/^This is a word document and this is an inline equation: \$A=\\pi r\^\{2\}\$\./);
    expect(text).toContain('\n\n$$f\\left(x\\right)=a_{0}+\\sum_{n=1}^{\\infty}\\left(a_{n}\\cos\\frac{n\\pi x}{L}+b_{n}\\sin\\frac{n\\pi x}{L}\\right)$$\n\n');
    expect((await parseDocument(equations, plain)).text).toMatch(/^This is a word document and this is an inline equation: A=πr2 \./);
    expect((await parseDocument(structure('docx/table_with_equations.docx'), markdown)).text).toContain('| $x=\\frac{-b\\pm \\sqrt{b^{2}-4ac}}{2a}$ |');
  });

  it('writes a .doc table as a pipe table in markdown', async () => {
    const doc = readFileSync(path.resolve(here, '../../../../shared/corpus/docs/doc/nwe-test03-table.doc'));
    const text = (await parseDocument(doc, markdown)).text;
    expect(text).toMatch(/^Each license name is hyperlinked to its location\.\n\n\| License \| GPL v3\.0 \| LGPL v3\.0 \| BSD \| MIT \(X11\) \| Apache v2\.0 \|\n\| --- \|/);
    expect(text.match(/^\| /gm)).toHaveLength(6);
  });
});

describe('hostile and malformed packages of the new formats', () => {
  it('applies the zip-bomb guard to every package format', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    const bombs: Array<[string, Buffer]> = [
      ['xlsx', rawZip([CONTENT_TYPES, { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') }, { name: 'xl/worksheets/sheet1.xml', data: zeros }])],
      ['pptx', rawZip([CONTENT_TYPES, { name: 'ppt/presentation.xml', data: zeros }])],
      ['odt', rawZip([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.text') }, { name: 'content.xml', data: zeros }])],
      ['epub', rawZip([{ name: 'mimetype', data: Buffer.from('application/epub+zip') }, { name: 'OEBPS/chapter.xhtml', data: zeros }])],
    ];
    for (const [kind, bomb] of bombs) {
      const started = cpuMs();
      const error = await failure(parseDocument(bomb, markdown));
      expect(cpuMs() - started).toBeLessThan(1000);
      expect([kind, error.code, error.details[0]]).toEqual([kind, '400-001', expect.stringMatching(/compression ratio above 100:1/)]);
    }
  });

  it('refuses a part over 24 MB of ordinary XML, and a forged size, in a workbook', async () => {
    const row = (i: number) => `<row r="${i}"><c r="A${i}" t="inlineStr"><is><t>row ${i} of an ordinary sheet</t></is></c></row>`;
    const sheet = Buffer.from(`<worksheet><sheetData>${Array.from({ length: 400_000 }, (_, i) => row(i + 1)).join('')}</sheetData></worksheet>`);
    expect(sheet.length).toBeGreaterThan(24 * 1024 * 1024);
    const big = await failure(parseDocument(rawZip([CONTENT_TYPES, { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') }, { name: 'xl/worksheets/sheet1.xml', data: sheet }]), markdown));
    expect(big.details[0]).toBe('the document exceeds a processing limit: part xl/worksheets/sheet1.xml expands to more than 24 MB');
    const forged = rawZip([CONTENT_TYPES, { name: 'xl/workbook.xml', data: Buffer.alloc(5 * 1024 * 1024), declaredSize: 100 }]);
    expect((await failure(parseDocument(forged, markdown))).details[0]).toMatch(/expands beyond its declared size/);
  }, 30_000);

  it('refuses truncated and incomplete packages with a reason, and never expands XML entities', async () => {
    const pptx = structure('pptx/powerpoint_sample.pptx');
    const truncated = await failure(parseDocument(pptx.subarray(0, pptx.length - 300), markdown));
    expect(truncated.code).toBe('400-001');
    const zip = await JSZip.loadAsync(pptx);
    zip.remove('ppt/slides/slide2.xml');
    const missing = await failure(parseDocument(await zip.generateAsync({ type: 'nodebuffer' }), markdown));
    expect(missing).toMatchObject({ code: '400-001', message: 'The document is damaged', details: ['the .pptx has no ppt/slides/slide2.xml'] });
    const noContent = await failure(parseDocument(rawZip([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') }]), markdown));
    expect(noContent.details).toEqual(['the .ods has no content.xml']);
    // A billion-laughs DOCTYPE: the entities stay unexpanded text.
    const laughs = `<!DOCTYPE d [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`;
    const odt = await odf('application/vnd.oasis.opendocument.text', `<office:text><text:p>&c;&c;&c;</text:p></office:text>`);
    const withDoctype = await JSZip.loadAsync(odt);
    withDoctype.file('content.xml', laughs + (await withDoctype.file('content.xml')!.async('string')));
    const text = (await parseDocument(await withDoctype.generateAsync({ type: 'nodebuffer' }), plain)).text;
    expect(text.length).toBeLessThan(100);
  });

  it('names the formats it does not read: .ppt, .xlsb', async () => {
    const xlsb = rawZip([CONTENT_TYPES, { name: 'xl/workbook.bin', data: Buffer.from('binary') }]);
    expect(await failure(parseDocument(xlsb, markdown))).toMatchObject({ code: '400-001', details: ['Excel binary workbooks (.xlsb) are not supported; save the file as .xlsx'] });
  });
});
