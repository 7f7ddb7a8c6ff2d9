import { describe, expect, it, jest } from '@jest/globals';
import JSZip from 'jszip';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from '../src/parse-document.js';
import { MAX_SHEET_ROWS, MAX_WORKBOOK_CELLS } from '../src/sheets/sheet-grid.js';
import { cpuMs } from '../../../tests/support/cpu-time.js';
import { failure } from './document-failure.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const structure = (relative: string): Buffer => readFileSync(path.resolve(here, '../../../../shared/corpus/docs-structure', relative));
const fixture = (name: string): Buffer => readFileSync(path.resolve(here, 'fixtures/office', name));
const markdown = { output: 'markdown' } as const;

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A minimal workbook: one sheet of the given sheetData (and extra parts, e.g. mergeCells), shared strings, styles. */
async function xlsx(sheetData: string, options: { after?: string; sharedStrings?: string[]; numFmts?: string; cellXfs?: string; date1904?: boolean } = {}): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>');
  zip.file('xl/workbook.xml', `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><workbookPr date1904="${options.date1904 ? 1 : 0}"/><sheets><sheet name="Data &amp; more" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
  );
  zip.file('xl/worksheets/sheet1.xml', `<x:worksheet xmlns:x="${MAIN}"><x:sheetData>${sheetData}</x:sheetData>${options.after ?? ''}</x:worksheet>`);
  zip.file('xl/sharedStrings.xml', `<sst xmlns="${MAIN}">${(options.sharedStrings ?? []).map((s) => `<si>${s}</si>`).join('')}</sst>`);
  zip.file('xl/styles.xml', `<styleSheet xmlns="${MAIN}"><numFmts>${options.numFmts ?? ''}</numFmts><cellXfs>${options.cellXfs ?? '<xf numFmtId="0"/>'}</cellXfs></styleSheet>`);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

describe('xlsx', () => {
  it('writes each sheet as a page: its name a heading, its tables (split at empty rows and columns) pipe tables, charts with their data', async () => {
    const result = await parseDocument(structure('xlsx/xlsx_01.xlsx'), markdown);
    expect(result).toMatchObject({ kind: 'xlsx', pages: 4 });
    const [sheet1, sheet2] = result.text.split('\n\n=== Page Break ===\n\n');
    expect(sheet1).toBe(
      ['## Sheet1', '| first | second | third |\n| --- | --- | --- |\n| 1 | 5 | 9 |\n| 2 | 4 | 6 |\n| 3 | 3 | 3 |\n| 4 | 2 | 0 |\n| 5 | 1 | -3 |\n| 6 | 0 | -6 |'].join('\n\n'),
    );
    // Three tables side by side and under one another, then two charts: their titles and cached series.
    expect(sheet2.match(/^\| col-1 \|/gm)).toHaveLength(3);
    expect(sheet2).toContain("'col-2', 'col-3', 'col-4' by 'col-1'\n\n|  | col-2 | col-3 | col-4 |\n| --- | --- | --- | --- |\n| 1 | 2 | 3 | 4 |");
  });

  it('reads shared, inline, boolean, error and formula cells, dates by their format, merged cells spread, pipes escaped', async () => {
    const bytes = await xlsx(
      [
        '<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="inlineStr"><x:is><x:r><x:t>In</x:t></x:r><x:r><x:t xml:space="preserve">line</x:t></x:r></x:is></x:c><x:c r="C1" t="s"><x:v>1</x:v></x:c></x:row>',
        '<x:row r="2"><x:c r="A2"><x:f>0.1+0.2</x:f><x:v>0.30000000000000004</x:v></x:c><x:c r="B2" t="b"><x:v>1</x:v></x:c><x:c r="C2" t="e"><x:v>#DIV/0!</x:v></x:c></x:row>',
        '<x:row r="3"><x:c r="A3" s="1"><x:v>45430</x:v></x:c><x:c r="B3" s="2"><x:v>45430.75</x:v></x:c><x:c r="C3" t="str"><x:f>A1&amp;"!"</x:f><x:v>a | b!</x:v></x:c></x:row>',
        '<x:row r="4"><x:c r="A4" t="s"><x:v>2</x:v></x:c></x:row>',
      ].join(''),
      {
        sharedStrings: ['<t>a | b</t>', '<r><t>Ki</t></r><rPh><t>ignored</t></rPh><r><t>ng</t></r>', '<t>Merged</t>'],
        numFmts: '<numFmt numFmtId="164" formatCode="dd/mm/yyyy\\ hh:mm"/>',
        cellXfs: '<xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/>',
        after: '<x:mergeCells><x:mergeCell ref="A4:C4"/></x:mergeCells>',
      },
    );
    const result = await parseDocument(bytes, markdown);
    expect(result.text).toBe(
      [
        '## Data & more',
        [
          '| a \\| b | Inline | King |',
          '| --- | --- | --- |',
          '| 0.3 | TRUE | #DIV/0! |',
          '| 2024-05-18 | 2024-05-18 18:00:00 | a \\| b! |',
          '| Merged | Merged | Merged |',
        ].join('\n'),
      ].join('\n\n'),
    );
    expect((await parseDocument(bytes, { output: 'plain' })).text).toContain('Data & more\n\na | b\tInline\tKing\n0.3\tTRUE\t#DIV/0!');
  });

  it('bounds a sheet: a cell at XFD1048576 is not read, and rows past the limit are cut with a note', async () => {
    const far = await xlsx('<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>near</x:t></x:is></x:c></x:row><x:row r="1048576"><x:c r="XFD1048576" t="inlineStr"><x:is><x:t>far</x:t></x:is></x:c></x:row>');
    const result = await parseDocument(far, markdown);
    expect(result.text).toBe(`## Data & more\n\n| near |\n| --- |\n\n(rows after row ${MAX_SHEET_ROWS.toLocaleString('en-US')} are not shown)`);
    expect(result.notes).toEqual([`sheet Data & more: rows after row ${MAX_SHEET_ROWS.toLocaleString('en-US')} are not shown`]);
    const wide = await xlsx('<x:row r="2"><x:c r="B2" t="inlineStr"><x:is><x:t>near</x:t></x:is></x:c><x:c r="IW2" t="inlineStr"><x:is><x:t>far</x:t></x:is></x:c></x:row>');
    expect((await parseDocument(wide, markdown)).text).toBe('## Data & more\n\n| near |\n| --- |\n\n(columns after column 256 are not shown)');
  });
});

describe('xls (BIFF8, made with LibreOffice)', () => {
  it('reads both sheets with formula results, a date and a merged title', async () => {
    const result = await parseDocument(fixture('workbook.xls'), { declaredType: 'xls', output: 'markdown' });
    expect(result).toMatchObject({ kind: 'xls', pages: 2 });
    expect(result.text).toBe(
      [
        '## Ducks',
        '| Year | Freshwater | Saltwater | Total |\n| --- | --- | --- | --- |\n| 2023 | 160 | 120 | 280 |\n| 2024 | 180 | 130 | 310 |',
        '=== Page Break ===',
        '## Survey notes',
        '| Lake Geneva survey | Lake Geneva survey |\n| --- | --- |\n| Observed on | 2024-05-17 |\n| Observer | Anna \\| Ben |',
      ].join('\n\n'),
    );
  });

  it('refuses a damaged workbook with 400-001, and the reader writes nothing to the console', async () => {
    const bytes = Buffer.from(fixture('workbook.xls'));
    // The OLE container stays whole; the Workbook stream's records after its BOF record become noise.
    const bof = bytes.indexOf(Buffer.from([0x09, 0x08, 0x10, 0x00]));
    expect(bof).toBeGreaterThan(0);
    for (let at = bof + 20; at < bof + 1500; at++) bytes[at] = (at * 131) % 251;
    const consoleError = jest.spyOn(console, 'error');
    try {
      const error = await failure(parseDocument(bytes, markdown));
      expect(error.code).toBe('400-001');
      // SheetJS says "Missing Info for XLS Record …" for the noise (the service's stderr, between its JSON logs).
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });

  it('reads past a record it does not know, and says so in a note rather than on the console', async () => {
    const bytes = Buffer.from(fixture('workbook.xls'));
    // The globals' WINDOW1 record (0x3d, which nothing here needs) given a type no reader knows, its length kept.
    const bof = bytes.indexOf(Buffer.from([0x09, 0x08, 0x10, 0x00]));
    const window1 = bytes.indexOf(Buffer.from([0x3d, 0x00, 0x12, 0x00]), bof);
    expect(window1).toBeGreaterThan(bof);
    bytes.writeUInt16LE(0xd24f, window1);
    const consoleError = jest.spyOn(console, 'error');
    try {
      const result = await parseDocument(bytes, markdown);
      expect(result.text).toBe((await parseDocument(fixture('workbook.xls'), markdown)).text);
      expect(result.notes).toContain('the .xls reader passed over one part of the file it could not read (Missing Info for XLS Record 0xd24f)');
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
    }
  });
});

describe('ods', () => {
  it('reads the corpus spreadsheet as tables under the sheet name', async () => {
    const result = await parseDocument(structure('ods/odf_table_with_title_01.ods'), markdown);
    expect(result.kind).toBe('ods');
    expect(result.text).toContain('| Number of freshwater ducks per year |\n| --- |\n\n| Year | Freshwater Ducks |\n| --- | --- |\n| 2019 | 120 |');
  });

  it('costs nothing for repeated empty cells and writes repeated filled ones within the limits', async () => {
    const row = (cells: string, repeat = 1) => `<table:table-row table:number-rows-repeated="${repeat}">${cells}</table:table-row>`;
    const cell = (text: string, repeat = 1) => `<table:table-cell table:number-columns-repeated="${repeat}" office:value-type="string"><text:p>${text}</text:p></table:table-cell>`;
    const empty = (repeat: number) => `<table:table-cell table:number-columns-repeated="${repeat}"/>`;
    const content = `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="Bomb">${row(cell('head') + empty(16383))}${row(empty(16384), 1_048_000)}${row(cell('x', 16384), 1_048_575)}</table:table></office:spreadsheet></office:body></office:document-content>`;
    const zip = new JSZip();
    zip.file('mimetype', 'application/vnd.oasis.opendocument.spreadsheet', { compression: 'STORE' });
    zip.file('content.xml', content);
    const started = cpuMs();
    const result = await parseDocument(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), { output: 'plain' });
    expect(cpuMs() - started).toBeLessThan(5_000);
    expect(result.kind).toBe('ods');
    // The filled rows start past row 10,000: only the header is within the sheet.
    expect(result.text).toBe('Bomb\n\nhead\n\n(rows after row 10,000 are not shown)');
    const filled = content.replace(row(empty(16384), 1_048_000), '');
    zip.file('content.xml', filled);
    const bounded = await parseDocument(await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), { output: 'plain' });
    const lines = bounded.text.split('\n');
    expect(lines[3]).toBe(Array.from({ length: 256 }, () => 'x').join('\t'));
    // 10,000 rows of 256 cells are more than the workbook's million: the whole budget is spent, no more.
    expect(bounded.text.match(/x/g)).toHaveLength(MAX_WORKBOOK_CELLS - 1);
    expect(lines[lines.length - 1]).toBe('(rows after row 10,000 are not shown; columns after column 256 are not shown; the workbook has more cells than are read; the rest is not shown)');
  }, 30_000);
});

describe('csv', () => {
  it('sniffs the delimiter and reads quoted fields with delimiters, quotes and line breaks', async () => {
    const csv = Buffer.from('Name;Note;Amount\r\n"Smith; Anna";"said ""hi""\nthen left";12,5\r\nBen;;3\r\n', 'utf8');
    const result = await parseDocument(csv, { declaredType: 'csv', output: 'markdown' });
    expect(result).toMatchObject({ kind: 'csv', pages: 1, encoding: 'utf-8' });
    expect(result.text).toBe('| Name | Note | Amount |\n| --- | --- | --- |\n| Smith; Anna | said "hi" then left | 12,5 |\n| Ben |  | 3 |');
    expect(result.notes).toContain('delimiter ;');
  });

  it('is txt unless declared, decodes windows-1252, and refuses an unclosed quote with 400-001', async () => {
    const latin = Buffer.from('caf\xe9,cr\xe8me\n1,2\n', 'latin1');
    expect((await parseDocument(latin, { output: 'plain' })).kind).toBe('txt');
    expect(await parseDocument(latin, { declaredType: 'text/csv', output: 'plain' })).toMatchObject({ kind: 'csv', text: 'café\tcrème\n1\t2', encoding: 'windows-1252' });
    const error = await failure(parseDocument(Buffer.from('a,b\n"open,2\n'), { declaredType: 'csv', output: 'plain' }));
    expect(error).toMatchObject({ code: '400-001', details: ['the CSV has an unclosed quote in row 2'] });
  });
});
