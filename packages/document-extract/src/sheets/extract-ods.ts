import { readXml } from '../markup/xml-stream.js';
import { openOdfPackage } from '../odf/odf-package.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { cutNotes, renderSheet } from './render-sheets.js';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, SheetGrid, WorkbookBudget } from './sheet-grid.js';

/**
 * OpenDocument spreadsheets (.ods): each table:table one page, like an .xlsx. A cell's text is
 * the text the file stores for display (its text:p, which holds a formula's last result as
 * LibreOffice formatted it). Repeated rows and cells (table:number-rows-repeated,
 * table:number-columns-repeated, which LibreOffice writes for whole empty stretches of a sheet)
 * cost nothing when empty and are written out only within the sheet limits when not.
 */
export async function extractOds(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const { content } = await openOdfPackage(bytes, 'the .ods');
  const budget = new WorkbookBudget();
  const sheets = readSpreadsheet(content, budget);
  const pages = sheets.map((sheet) => renderSheet(sheet, opts.output, { heading: true }));
  opts.onProgress?.(pages.length, pages.length);
  const notes = sheets.flatMap((sheet) => cutNotes(sheet).map((cut) => `sheet ${sheet.name}: ${cut}`));
  return { kind: 'ods', pages: pages.length > 0 ? pages : [''], notes, ocrPages: 0 };
}

interface PendingCell {
  column: number;
  text: string;
  repeat: number;
}

function readSpreadsheet(xml: string, budget: WorkbookBudget): SheetGrid[] {
  const sheets: SheetGrid[] = [];
  let grid: SheetGrid | null = null;
  let tableDepth = 0;
  let row = 0;
  let rowRepeat = 1;
  let column = 0;
  let cells: PendingCell[] = [];
  let merges: Array<[number, number, number, number]> = [];
  let cell: { repeat: number; value: string; spans: [number, number]; paragraphs: string[] } | null = null;
  let paragraph: string[] | null = null;
  let skipped = 0;

  readXml(xml, {
    open(name, attributes) {
      if (skipped > 0 || name === 'annotation' || name === 'shapes' || name === 'frame') {
        skipped++;
        return;
      }
      switch (name) {
        case 'table':
          tableDepth++;
          if (tableDepth === 1) {
            grid = new SheetGrid(attributes.name ?? `Sheet${sheets.length + 1}`, budget);
            row = 0;
            merges = [];
          }
          break;
        case 'table-row':
          rowRepeat = repeatCount(attributes['number-rows-repeated']);
          column = 0;
          cells = [];
          break;
        case 'table-cell':
        case 'covered-table-cell':
          cell = {
            repeat: repeatCount(attributes['number-columns-repeated']),
            value: attributes.value ?? attributes['date-value'] ?? attributes['time-value'] ?? attributes['boolean-value'] ?? attributes['string-value'] ?? '',
            spans: [repeatCount(attributes['number-rows-spanned']), repeatCount(attributes['number-columns-spanned'])],
            paragraphs: [],
          };
          break;
        case 'p':
        case 'h':
          if (cell) paragraph = [];
          break;
        case 's':
          paragraph?.push(' '.repeat(Math.min(repeatCount(attributes.c), 100)));
          break;
        case 'tab':
          paragraph?.push('\t');
          break;
        case 'line-break':
          paragraph?.push('\n');
          break;
      }
    },
    text(text) {
      if (skipped === 0) paragraph?.push(text);
    },
    close(name) {
      if (skipped > 0) {
        skipped--;
        return;
      }
      switch (name) {
        case 'p':
        case 'h':
          if (cell && paragraph) cell.paragraphs.push(paragraph.join(''));
          paragraph = null;
          break;
        case 'table-cell':
        case 'covered-table-cell':
          if (cell) {
            const text = (cell.paragraphs.length > 0 ? cell.paragraphs.join('\n') : cell.value).trim();
            if (text !== '') cells.push({ column, text, repeat: cell.repeat });
            if (name === 'table-cell' && (cell.spans[0] > 1 || cell.spans[1] > 1) && text !== '') {
              merges.push([row, column, row + cell.spans[0] - 1, column + cell.spans[1] - 1]);
            }
            column += cell.repeat;
          }
          cell = null;
          break;
        case 'table-row':
          if (grid && tableDepth === 1) {
            // An empty row repeated a million times is only a jump; a filled one is copied up to the limit.
            if (cells.length > 0 && row + rowRepeat > MAX_SHEET_ROWS) grid.rowsCut = true;
            const copies = cells.length === 0 ? 0 : Math.max(0, Math.min(rowRepeat, MAX_SHEET_ROWS - row));
            for (let copy = 0; copy < copies; copy++) {
              for (const filled of cells) {
                if (filled.column + filled.repeat > MAX_SHEET_COLUMNS) grid.columnsCut = true;
                const last = Math.min(filled.column + filled.repeat, MAX_SHEET_COLUMNS);
                for (let c = filled.column; c < last; c++) grid.set(row + copy, c, filled.text);
              }
            }
            row += rowRepeat;
          }
          break;
        case 'table':
          tableDepth--;
          if (tableDepth === 0 && grid) {
            for (const [top, left, bottom, right] of merges) grid.spreadMerge(top, left, bottom, right);
            sheets.push(grid);
            grid = null;
          }
          break;
      }
    },
  });
  return sheets;
}

/** A repeat or span count: at least 1; huge counts are kept (they only move positions). */
function repeatCount(value: string | undefined): number {
  const count = Number.parseInt(value ?? '', 10);
  return Number.isFinite(count) && count > 1 ? count : 1;
}
