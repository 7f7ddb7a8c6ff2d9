import type { CellObject, WorkBook } from '@e965/xlsx';
import { DocumentError } from '../errors.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { cutNotes, renderSheet } from './render-sheets.js';
import { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, SheetGrid, WorkbookBudget } from './sheet-grid.js';

/**
 * Excel 97-2003 (.xls, BIFF8; Excel 5/95's BIFF5 too) through SheetJS Community Edition
 * (`@e965/xlsx`, a republication of SheetJS's own 0.20.3 tarball, which is no longer published
 * to npm as `xlsx`; docs/design-notes.md says why this one). BIFF is a binary record stream with
 * shared strings split over CONTINUE records and formula results in FORMULA/STRING records: a
 * real reader's job. It reads the first MAX_SHEET_ROWS rows of a sheet only (sheetRows), keeps
 * no formulas, styles or HTML, and gives each cell as Excel formats it (`w`). Loaded on first
 * use: the library is 1 MB of code a process reading no .xls never needs.
 */
export async function extractXls(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const XLSX = await import('@e965/xlsx');
  let workbook: WorkBook;
  const complaints = new LibraryComplaints();
  try {
    workbook = complaints.during(() => XLSX.read(bytes, {
      type: 'buffer',
      dense: true,
      // One more row than we keep, so that a longer sheet is known to be cut.
      sheetRows: MAX_SHEET_ROWS + 1,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      bookVBA: false,
      WTF: false,
    }));
  } catch (error) {
    throw mapLibraryError(error);
  }
  const budget = new WorkbookBudget();
  const pages: string[] = [];
  const notes: string[] = complaints.note();
  for (const name of workbook.SheetNames) {
    opts.signal?.throwIfAborted();
    const sheet = workbook.Sheets[name];
    const grid = new SheetGrid(name, budget);
    const rows = (sheet?.['!data'] ?? []) as Array<Array<CellObject | undefined> | undefined>;
    for (let r = 0; r < rows.length; r++) {
      const cells = rows[r];
      if (!cells) continue;
      for (let c = 0; c < Math.min(cells.length, MAX_SHEET_COLUMNS + 1); c++) {
        const cell = cells[c];
        if (cell) grid.set(r, c, cellText(cell));
      }
    }
    for (const merge of sheet?.['!merges'] ?? []) grid.spreadMerge(merge.s.r, merge.s.c, merge.e.r, merge.e.c);
    pages.push(renderSheet(grid, opts.output, { heading: true }));
    for (const cut of cutNotes(grid)) notes.push(`sheet ${name}: ${cut}`);
    opts.onProgress?.(pages.length, workbook.SheetNames.length);
  }
  if (pages.length === 0) throw new DocumentError('400-001', 'The document is damaged', ['the .xls workbook has no sheets']);
  return { kind: 'xls', pages, notes, ocrPages: 0 };
}

function cellText(cell: CellObject): string {
  if (cell.t === 'z' || cell.v === undefined || cell.v === null) return '';
  if (cell.t === 'e') return cell.w ?? '#ERROR';
  if (cell.t === 'b') return cell.v ? 'TRUE' : 'FALSE';
  return (cell.w ?? String(cell.v)).trim();
}

/**
 * SheetJS tells of what it passes over in a file (a record it does not know, a name it cuts) with
 * console.error: in the service, the parse thread's stderr, between the JSON log lines, one line
 * for each such record, and a crafted file can hold millions. Its reading is synchronous and a
 * parse thread runs one document at a time, so the thread's console is taken for exactly that
 * long; what it said becomes one operator note.
 */
class LibraryComplaints {
  private count = 0;
  private first = '';

  during<T>(read: () => T): T {
    const saved = { error: console.error, warn: console.warn, log: console.log };
    const complain = (...args: unknown[]) => {
      if (this.count++ === 0) this.first = args.map(String).join(' ').slice(0, 200);
    };
    Object.assign(console, { error: complain, warn: complain, log: complain });
    try {
      return read();
    } finally {
      Object.assign(console, saved);
    }
  }

  note(): string[] {
    if (this.count === 0) return [];
    return [`the .xls reader passed over ${this.count === 1 ? 'one part' : `${this.count} parts`} of the file it could not read (${this.first})`];
  }
}

/** SheetJS's errors on files it cannot read are plain Errors; the ones that mean a bad file become 400-001. */
function mapLibraryError(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (/password|encrypt/i.test(message)) {
    return new DocumentError('400-001', 'Password-protected documents are not supported', ['the Excel workbook is password-protected (encrypted)']);
  }
  if (/unsupported|corrupt|invalid|unexpected|bad |cannot find|not a |out of range|offset|length/i.test(message) || error instanceof RangeError) {
    return new DocumentError('400-001', 'The document is damaged', [`the .xls file cannot be read: ${message.slice(0, 200)}`]);
  }
  return error;
}
