import { describe, expect, it } from '@jest/globals';
import JSZip from 'jszip';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatNumber } from '../src/office/docx-numbering.js';
import { extractDocx } from '../src/office/index.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const here = path.dirname(fileURLToPath(import.meta.url));
const structure = (relative: string): Buffer => readFileSync(path.resolve(here, '../../../../shared/corpus/docs-structure', relative));

const level = (ilvl: number, format: string, text: string, start = 1, extra = '') =>
  `<w:lvl w:ilvl="${ilvl}"><w:start w:val="${start}"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${text}"/>${extra}</w:lvl>`;
const style = (id: string, name: string, inner = '', type = 'paragraph') => `<w:style w:type="${type}" w:styleId="${id}"><w:name w:val="${name}"/>${inner}</w:style>`;
const numbered = (numId: number, ilvl?: number) => `<w:numPr>${ilvl === undefined ? '' : `<w:ilvl w:val="${ilvl}"/>`}<w:numId w:val="${numId}"/></w:numPr>`;
const para = (text: string, { styleId, numbering = '' }: { styleId?: string; numbering?: string } = {}) =>
  `<w:p><w:pPr>${styleId ? `<w:pStyle w:val="${styleId}"/>` : ''}${numbering}</w:pPr><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/** A package with styles and numbering parts, as Word writes them (mammoth finds both through the relationships). */
async function numberedDocx(styles: string, numbering: string, body: string): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>');
  zip.file('_rels/.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`);
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`);
  zip.file('word/styles.xml', `<?xml version="1.0"?><w:styles xmlns:w="${W}">${styles}</w:styles>`);
  zip.file('word/numbering.xml', `<?xml version="1.0"?><w:numbering xmlns:w="${W}">${numbering}</w:numbering>`);
  zip.file(
    'word/_rels/document.xml.rels',
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rS" Type="${REL}/styles" Target="styles.xml"/><Relationship Id="rN" Type="${REL}/numbering" Target="numbering.xml"/></Relationships>`,
  );
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const STYLES = [
  style('Heading1', 'heading 1', `<w:pPr>${numbered(1, 0)}</w:pPr>`),
  style('Heading2', 'heading 2', `<w:pPr>${numbered(1, 1)}</w:pPr>`),
  // A heading style of the document's own, based on a built-in one and numbered by a definition of its own.
  style('AppendixHeading', 'heading 1 appendix', `<w:basedOn w:val="Heading1"/><w:pPr>${numbered(2, 0)}</w:pPr>`),
  style('ListStyle', 'Outline List', `<w:pPr>${numbered(3)}</w:pPr>`, 'numbering'),
].join('');
const NUMBERING = [
  `<w:abstractNum w:abstractNumId="0">${level(0, 'decimal', '%1.')}${level(1, 'decimal', '%1.%2')}</w:abstractNum>`,
  `<w:abstractNum w:abstractNumId="1">${level(0, 'upperLetter', 'Appendix %1')}</w:abstractNum>`,
  `<w:abstractNum w:abstractNumId="2">${level(0, 'decimal', '%1.')}${level(1, 'lowerRoman', '%1.%2.')}${level(2, 'bullet', '•')}</w:abstractNum>`,
  // Defined through a numbering style: its levels are those of the instance the style names.
  '<w:abstractNum w:abstractNumId="3"><w:numStyleLink w:val="ListStyle"/></w:abstractNum>',
  '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>',
  '<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>',
  '<w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>',
  '<w:num w:numId="4"><w:abstractNumId w:val="2"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="5"/></w:lvlOverride></w:num>',
  '<w:num w:numId="5"><w:abstractNumId w:val="3"/></w:num>',
].join('');

describe('Word numbering', () => {
  it("writes Word's numbers before numbered headings and multi-level list items", async () => {
    const body = [
      para('Scope', { styleId: 'Heading1' }),
      para('Terms', { styleId: 'Heading2' }),
      // mc:Choice repeats its mc:Fallback, which mammoth reads (empty here): not counted, so Goals is 1.2.
      `<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps">${para('Boxed', { styleId: 'Heading2' })}</mc:Choice><mc:Fallback/></mc:AlternateContent></w:r></w:p>`,
      para('Goals', { styleId: 'Heading2' }),
      para('Design', { styleId: 'Heading1' }),
      // The deeper level restarts under a new heading.
      para('Parts', { styleId: 'Heading2' }),
      // numId 0 takes the style's numbering away.
      para('Unnumbered', { styleId: 'Heading1', numbering: numbered(0) }),
      // A tracked change's former numbering is history: it counts for nothing (Glossary stays A).
      para('Was numbered.', { numbering: `<w:pPrChange w:id="1"><w:pPr>${numbered(2, 0)}</w:pPr></w:pPrChange>` }),
      para('Glossary', { styleId: 'AppendixHeading' }),
      para('Alpha', { numbering: numbered(3, 0) }),
      para('Beta', { numbering: numbered(3, 1) }),
      para('Dot', { numbering: numbered(3, 2) }),
      para('Between the lists.'),
      para('Gamma', { numbering: numbered(4, 0) }),
      para('Delta', { numbering: numbered(4, 1) }),
      para('Between the lists.'),
      para('Linked', { numbering: numbered(5, 1) }),
    ].join('');
    const { pages } = await extractDocx(await numberedDocx(STYLES, NUMBERING, body), { output: 'markdown' });
    const lines = pages[0].split('\n').filter((l) => l.trim() !== '');
    expect(lines).toEqual([
      '# 1. Scope',
      '## 1.1 Terms',
      '## 1.2 Goals',
      '# 2. Design',
      '## 2.1 Parts',
      '# Unnumbered',
      'Was numbered.',
      '# Appendix A Glossary',
      // One-level labels stay the list's own numbers; labels that repeat the levels above are
      // written out, in a bulleted list, since the markdown numbers could not say them.
      '1. Alpha',
      '   - 1.i. Beta',
      '     - Dot',
      'Between the lists.',
      // The instance starts at 5: the markdown list does too.
      '5. Gamma',
      '   - 5.i. Delta',
      'Between the lists.',
      '- 1.i. Linked',
    ]);
    const plain = await extractDocx(await numberedDocx(STYLES, NUMBERING, body), { output: 'plain' });
    expect(plain.pages[0]).toContain('2.1 Parts');
    expect(plain.pages[0]).toContain('5.i. Delta');
    expect(plain.pages[0]).not.toMatch(/[\uE002\uE003]/);
  });

  it("keeps Word's numbers in a one-level list that goes on after a paragraph", async () => {
    const body = [para('First', { numbering: numbered(3, 0) }), para('Second', { numbering: numbered(3, 0) }), para('A note between the items.'), para('Third', { numbering: numbered(3, 0) })].join('');
    const { pages } = await extractDocx(await numberedDocx(STYLES, NUMBERING, body), { output: 'markdown' });
    expect(pages[0].split('\n').filter((l) => l.trim() !== '')).toEqual(['1. First', '2. Second', 'A note between the items.', '3. Third']);
    const plain = await extractDocx(await numberedDocx(STYLES, NUMBERING, body), { output: 'plain' });
    expect(plain.pages[0]).not.toMatch(/[\uE004\uE005]/);
  });

  it('formats counters as Word does', () => {
    expect([1, 4, 9, 14, 1994].map((n) => formatNumber(n, 'lowerRoman'))).toEqual(['i', 'iv', 'ix', 'xiv', 'mcmxciv']);
    expect(formatNumber(40, 'upperRoman')).toBe('XL');
    expect([1, 26, 27, 53].map((n) => formatNumber(n, 'lowerLetter'))).toEqual(['a', 'z', 'aa', 'aaa']);
    expect(formatNumber(3, 'upperLetter')).toBe('C');
    expect(formatNumber(7, 'decimalZero')).toBe('07');
    expect(formatNumber(12, 'ordinalText')).toBe('12');
  });

  it('numbers the headings and items of a real numbered document as Word shows them', async () => {
    const { pages } = await extractDocx(structure('docx/unit_test_headers_numbered.docx'), { output: 'markdown' });
    const text = pages.join('\n\n');
    // A third-level heading straight under a first-level one shows the second level's start.
    for (const heading of ['# 1. Section 1', '## 1.1. Section 1.1', '### 1.2.1. Section 1.2.3', '### 2.1.1. Section 2.1.1', '## 2.2. Section 2.1']) expect(text).toContain(`\n${heading}\n`);
    expect(text).toMatch(/^ +- 2\.3\.8\.2\. Second sub-item at this level$/m);
    // "heading 2 invisible num": based on Heading 2, numbered with a level that shows nothing.
    expect(text).toContain('\n## REFERENCES\n');
    // A list resumed deeper after a paragraph is not wrapped in an empty outer item.
    const spacer = (await extractDocx(structure('docx/docx_list_blank_spacer.docx'), { output: 'markdown' })).pages.join('\n\n');
    expect(spacer).toMatch(/^- 1\.2\.? Sub two$/m);
  });
});
