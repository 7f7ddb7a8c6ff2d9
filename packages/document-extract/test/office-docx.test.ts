import { describe, expect, it } from '@jest/globals';
import JSZip from 'jszip';
import { parse } from 'node-html-parser';
import { extractDocx } from '../src/office/index.js';
import { htmlToText } from '../src/office/html-to-text.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const paragraph = (inner: string): string => `<w:p>${inner}</w:p>`;
const run = (text: string): string => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const story = (root: 'hdr' | 'ftr', text: string): string => `<?xml version="1.0" encoding="UTF-8"?><w:${root} xmlns:w="${W}">${paragraph(run(text))}</w:${root}>`;

interface DocxParts {
  body: string;
  sectPr?: string;
  settings?: string;
  /** Extra parts, e.g. word/header1.xml, each with its relationship id. */
  stories?: Array<{ id: string; kind: 'header' | 'footer'; name: string; text: string }>;
}

/** A minimal WordprocessingML package, enough for mammoth and for our header/footer reader. */
async function docx({ body, sectPr = '', settings, stories = [] }: DocxParts): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/></Types>');
  zip.file('_rels/.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`);
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body}${sectPr}</w:body></w:document>`);
  const relationships = stories.map((s) => `<Relationship Id="${s.id}" Type="${REL}/${s.kind}" Target="${s.name}"/>`);
  if (settings !== undefined) {
    zip.file('word/settings.xml', `<?xml version="1.0"?><w:settings xmlns:w="${W}">${settings}</w:settings>`);
    relationships.push(`<Relationship Id="rIdSettings" Type="${REL}/settings" Target="settings.xml"/>`);
  }
  for (const s of stories) zip.file(`word/${s.name}`, story(s.kind === 'header' ? 'hdr' : 'ftr', s.text));
  zip.file('word/_rels/document.xml.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships.join('')}</Relationships>`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const stories: DocxParts['stories'] = [
  { id: 'rH1', kind: 'header', name: 'header1.xml', text: 'Default header &amp; more' },
  { id: 'rH2', kind: 'header', name: 'header2.xml', text: 'First page header' },
  { id: 'rH3', kind: 'header', name: 'header3.xml', text: 'Even page header' },
  { id: 'rF1', kind: 'footer', name: 'footer1.xml', text: 'Default footer &lt;1&gt;' },
];
const references =
  '<w:headerReference w:type="default" r:id="rH1"/><w:headerReference w:type="first" r:id="rH2"/><w:headerReference w:type="even" r:id="rH3"/><w:footerReference w:type="default" r:id="rF1"/>';
const plain = { output: 'plain' } as const;

describe('docx headers and footers', () => {
  it('shows only the default parts unless titlePg / evenAndOddHeaders say otherwise', async () => {
    const bytes = await docx({ body: paragraph(run('Body')), sectPr: `<w:sectPr>${references}</w:sectPr>`, settings: '', stories });
    expect((await extractDocx(bytes, plain)).pages).toEqual(['Default header & more\n\nBody\n\nDefault footer <1>']);
  });

  it('adds the first-page header with w:titlePg and the even one with w:evenAndOddHeaders', async () => {
    const bytes = await docx({
      body: paragraph(run('Body')),
      sectPr: `<w:sectPr>${references}<w:titlePg/></w:sectPr>`,
      settings: '<w:evenAndOddHeaders/>',
      stories,
    });
    expect((await extractDocx(bytes, plain)).pages).toEqual(['First page header\n\nDefault header & more\n\nEven page header\n\nBody\n\nDefault footer <1>']);
  });

  it('honours w:val="0" on the switches and reads a part shared by two sections once', async () => {
    const first = `<w:p><w:pPr><w:sectPr>${references}<w:titlePg w:val="0"/></w:sectPr></w:pPr>${run('One')}</w:p>`;
    const bytes = await docx({
      body: first + paragraph(run('Two')),
      sectPr: `<w:sectPr><w:headerReference w:type="default" r:id="rH1"/></w:sectPr>`,
      settings: '<w:evenAndOddHeaders w:val="false"/>',
      stories,
    });
    expect((await extractDocx(bytes, plain)).pages).toEqual(['Default header & more\n\nOne\n\nTwo\n\nDefault footer <1>']);
  });
});

describe('docx body', () => {
  it('does not glue the words around w:cr or w:br', async () => {
    const body = paragraph('<w:r><w:t>line</w:t><w:cr/><w:t>break</w:t><w:br/><w:t>again</w:t></w:r>');
    expect((await extractDocx(await docx({ body }), plain)).pages).toEqual(['line\nbreak\nagain']);
  });

  it('splits pages at w:br type="page" but not at w:lastRenderedPageBreak', async () => {
    const body =
      paragraph(run('Page one') + '<w:r><w:lastRenderedPageBreak/></w:r>' + run(' still one')) +
      paragraph(run('End of one') + '<w:r><w:br w:type="page"/></w:r>' + run('Start of two')) +
      paragraph(run('Two'));
    const { pages } = await extractDocx(await docx({ body }), plain);
    expect(pages).toEqual(['Page one still one\n\nEnd of one', 'Start of two\n\nTwo']);
  });

  it('writes tables as tab-separated rows in plain text and GFM tables in markdown', async () => {
    const cell = (text: string): string => `<w:tc>${paragraph(run(text))}</w:tc>`;
    const twoParagraphs = `<w:tc>${paragraph(run('first'))}${paragraph(run('second'))}</w:tc>`;
    const table = `<w:tbl><w:tr>${cell('Name')}${cell('Value')}</w:tr><w:tr>${cell('a | b')}${twoParagraphs}</w:tr></w:tbl>`;
    const bytes = await docx({ body: paragraph(run('Before')) + table + paragraph('<w:r><w:rPr><w:b/></w:rPr><w:t>Bold</w:t></w:r>') });
    expect((await extractDocx(bytes, plain)).pages).toEqual(['Before\n\nName\tValue\na | b\tfirst second\n\nBold']);
    const markdown = (await extractDocx(bytes, { output: 'markdown' })).pages[0];
    expect(markdown).toMatch(/^Before\n\n\| Name +\| Value +\|\n\| -+ \| -+ \|\n\| a \\\| b +\| first second +\|\n\n\*\*Bold\*\*$/);
  });
});

describe('htmlToText', () => {
  it('puts list items on lines, paragraphs apart, and collapses HTML whitespace', () => {
    const root = parse('<h1>Title</h1>\n<p>Some   <b>bold</b>\n text</p><ul><li>one</li><li><p>two</p><ul><li>nested</li></ul></li></ul><p>a<br>b</p><script>x()</script>');
    expect(htmlToText(root, { preserveWhitespace: false })).toBe('Title\n\nSome bold text\n\none\ntwo\nnested\n\na\nb');
  });
});
