import { DocumentError } from '../errors.js';
import { readXml, relationshipId } from '../markup/xml-stream.js';
import { readRelationships } from '../office/relationships.js';
import { missingPart, openZipPackage } from '../office/zip-package.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { isDateFormat, numberText, serialDateText } from './cell-values.js';
import { renderChart, readChartsOf } from './xlsx-charts.js';
import { cutNotes, renderSheet } from './render-sheets.js';
import { SheetGrid, WorkbookBudget } from './sheet-grid.js';

const WORKBOOK = 'xl/workbook.xml';

interface WorkbookSheet {
  name: string;
  relationshipId: string;
}

/**
 * Excel 2007+ (.xlsx, .xlsm): each sheet one page, its name a heading, its tables (split at
 * empty rows and columns) pipe tables; formulas as the values Excel cached when it saved
 * (nothing is recalculated); dates by their number format; merged cells spread; charts as their
 * title and their cached data. Read from the package's XML with a streaming parser, within the
 * sheet and workbook limits of sheet-grid.ts.
 */
export async function extractXlsx(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const pkg = await openZipPackage(bytes, 'the .xlsx');
  const workbookXml = await pkg.text(WORKBOOK);
  if (workbookXml === null) throw missingPart('the .xlsx', WORKBOOK);
  const { sheets, date1904 } = readWorkbook(workbookXml);
  const relationships = await readRelationships(pkg.zip, WORKBOOK);
  const sharedStringsPart = [...relationships.values()].find((r) => r.type === 'sharedStrings')?.target ?? 'xl/sharedStrings.xml';
  const sharedStrings = readSharedStrings((await pkg.text(sharedStringsPart)) ?? '');
  const stylesPart = [...relationships.values()].find((r) => r.type === 'styles')?.target ?? 'xl/styles.xml';
  const dateStyles = readDateStyles((await pkg.text(stylesPart)) ?? '');

  const budget = new WorkbookBudget();
  const pages: string[] = [];
  const notes: string[] = [];
  for (const sheet of sheets) {
    opts.signal?.throwIfAborted();
    const part = relationships.get(sheet.relationshipId);
    const grid = new SheetGrid(sheet.name, budget);
    if (part?.type === 'worksheet') {
      const xml = await pkg.text(part.target);
      if (xml === null) throw missingPart('the .xlsx', part.target);
      readWorksheet(xml, grid, { sharedStrings, dateStyles, date1904 });
    }
    const charts = part ? await readChartsOf(pkg, part.target) : [];
    pages.push([renderSheet(grid, opts.output, { heading: true }), ...charts.map((chart) => renderChart(chart, opts.output))].filter((p) => p !== '').join('\n\n'));
    for (const cut of cutNotes(grid)) notes.push(`sheet ${sheet.name}: ${cut}`);
    opts.onProgress?.(pages.length, sheets.length);
  }
  if (pages.length === 0) throw new DocumentError('400-001', 'The document is damaged', ['the .xlsx workbook lists no sheets']);
  return { kind: 'xlsx', pages, notes, ocrPages: 0 };
}

function readWorkbook(xml: string): { sheets: WorkbookSheet[]; date1904: boolean } {
  const sheets: WorkbookSheet[] = [];
  let date1904 = false;
  readXml(xml, {
    open(name, attributes) {
      if (name === 'workbookPr') date1904 = attributes.date1904 === '1' || attributes.date1904 === 'true';
      else if (name === 'sheet') {
        const id = relationshipId(attributes);
        if (id) sheets.push({ name: attributes.name ?? '', relationshipId: id });
      }
    },
  });
  return { sheets, date1904 };
}

/** The shared string table: each `<si>`'s text runs joined, phonetic guides (`<rPh>`) left out. */
function readSharedStrings(xml: string): string[] {
  const strings: string[] = [];
  let current: string[] | null = null;
  let inText = false;
  let phonetic = 0;
  readXml(xml, {
    open(name) {
      if (name === 'si') current = [];
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && phonetic === 0) inText = true;
    },
    text(text) {
      if (inText && current) current.push(text);
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && current) {
        strings.push(current.join(''));
        current = null;
      }
    },
  });
  return strings;
}

/** For each cell format (`cellXfs` index), whether its number format shows a date. */
function readDateStyles(xml: string): boolean[] {
  const customFormats = new Map<number, string>();
  const dateStyles: boolean[] = [];
  let inCellFormats = false;
  readXml(xml, {
    open(name, attributes) {
      if (name === 'numFmt') customFormats.set(Number(attributes.numFmtId), attributes.formatCode ?? '');
      else if (name === 'cellXfs') inCellFormats = true;
      else if (name === 'xf' && inCellFormats) {
        const id = Number(attributes.numFmtId ?? 0);
        dateStyles.push(isDateFormat(id, customFormats.get(id)));
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellFormats = false;
    },
  });
  return dateStyles;
}

interface CellContext {
  sharedStrings: string[];
  dateStyles: boolean[];
  date1904: boolean;
}

/** A worksheet's cells into the grid: `<row r>`, `<c r t s>` with `<v>` or an inline `<is>`; `<mergeCell ref>` spread afterwards. */
function readWorksheet(xml: string, grid: SheetGrid, context: CellContext): void {
  let row = -1;
  let column = -1;
  let type = 'n';
  let style = 0;
  let value: string[] | null = null;
  let inValue = false;
  let inInline = false;
  let phonetic = 0;
  const merges: string[] = [];
  readXml(xml, {
    open(name, attributes) {
      switch (name) {
        case 'row':
          row = attributes.r ? Number(attributes.r) - 1 : row + 1;
          column = -1;
          break;
        case 'c': {
          const position = attributes.r ? cellPosition(attributes.r) : null;
          if (position) [row, column] = position;
          else column++;
          type = attributes.t ?? 'n';
          style = Number(attributes.s ?? 0);
          value = [];
          break;
        }
        case 'v':
          inValue = true;
          break;
        case 'is':
          inInline = true;
          break;
        case 'rPh':
          phonetic++;
          break;
        case 't':
          if (inInline && phonetic === 0) inValue = true;
          break;
        case 'mergeCell':
          if (attributes.ref) merges.push(attributes.ref);
          break;
      }
    },
    text(text) {
      if (inValue && value) value.push(text);
    },
    close(name) {
      switch (name) {
        case 'v':
        case 't':
          inValue = false;
          break;
        case 'is':
          inInline = false;
          break;
        case 'rPh':
          phonetic--;
          break;
        case 'c':
          if (value) grid.set(row, column, cellText(value.join(''), type, style, context));
          value = null;
          break;
      }
    },
  });
  for (const ref of merges) {
    const [from, to] = ref.split(':');
    const start = cellPosition(from);
    const end = cellPosition(to ?? from);
    if (start && end) grid.spreadMerge(start[0], start[1], end[0], end[1]);
  }
}

function cellText(raw: string, type: string, style: number, context: CellContext): string {
  switch (type) {
    case 's':
      return context.sharedStrings[Number(raw)] ?? '';
    case 'b':
      return raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
    case 'str':
    case 'inlineStr':
    case 'e':
    case 'd':
      return raw;
    default:
      if (raw === '') return '';
      return context.dateStyles[style] ? serialDateText(raw, context.date1904) : numberText(raw);
  }
}

/** "B3" -> [2, 1] (row, column; 0-based); null for what is no cell reference. */
export function cellPosition(ref: string): [number, number] | null {
  const match = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/.exec(ref.trim());
  if (!match) return null;
  let column = 0;
  for (const letter of match[1].toUpperCase()) column = column * 26 + (letter.charCodeAt(0) - 64);
  return [Number(match[2]) - 1, column - 1];
}

