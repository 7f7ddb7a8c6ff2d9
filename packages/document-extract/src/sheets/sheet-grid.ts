/**
 * A sheet's cells as the readers find them (XLSX, XLS, ODS, CSV), bounded: a sheet's size is
 * what its author typed, not what the file claims (ODS repeats a row "1,048,576 times", an XLSX
 * may set a cell at XFD1048576), so only cells with text are kept, and only within the limits.
 */

/** Rows of one sheet read; later rows are left out, and the output says so. */
export const MAX_SHEET_ROWS = 10_000;
/** Columns of one sheet read (Excel's own limit is 16,384). */
export const MAX_SHEET_COLUMNS = 256;
/** Cells with text in the whole workbook: past this, the rest of the workbook is left out. */
export const MAX_WORKBOOK_CELLS = 1_000_000;
/** One merged range's cells written out; a larger merge keeps its text in its first cell only. */
const MAX_MERGE_CELLS = 10_000;
/** Splits of a sheet into tables nested this deep stop splitting. */
const MAX_CUT_DEPTH = 16;

/** Shared by the sheets of one workbook: the cell budget and the notes for operators. */
export class WorkbookBudget {
  cells = 0;
  readonly notes: string[] = [];

  get spent(): boolean {
    return this.cells >= MAX_WORKBOOK_CELLS;
  }
}

export class SheetGrid {
  /** Row index -> cells of the row (sparse). */
  private readonly rows = new Map<number, string[]>();
  /** Whether cells were left out past a limit; shown under the sheet's tables. */
  rowsCut = false;
  columnsCut = false;
  workbookCut = false;

  constructor(
    readonly name: string,
    private readonly budget: WorkbookBudget,
  ) {}

  /** Sets a cell (0-based); empty text and cells past a limit are not kept. */
  set(row: number, column: number, text: string): void {
    if (text === '' || row < 0 || column < 0) return;
    if (row >= MAX_SHEET_ROWS) {
      this.rowsCut = true;
      return;
    }
    if (column >= MAX_SHEET_COLUMNS) {
      this.columnsCut = true;
      return;
    }
    let cells = this.rows.get(row);
    if (!cells) this.rows.set(row, (cells = []));
    if (cells[column] === undefined) {
      if (this.budget.spent) {
        this.workbookCut = true;
        return;
      }
      this.budget.cells++;
    }
    cells[column] = text;
  }

  get(row: number, column: number): string | undefined {
    return this.rows.get(row)?.[column];
  }

  /**
   * A merged range shows its first cell's text over the whole range: written into every cell it
   * covers, as Docling does (a reader of one row sees what the merged cell says about it).
   */
  spreadMerge(top: number, left: number, bottom: number, right: number): void {
    const text = this.get(top, left);
    if (text === undefined) return;
    const lastRow = Math.min(bottom, MAX_SHEET_ROWS - 1);
    const lastColumn = Math.min(right, MAX_SHEET_COLUMNS - 1);
    if ((lastRow - top + 1) * (lastColumn - left + 1) > MAX_MERGE_CELLS) return;
    for (let r = top; r <= lastRow; r++) for (let c = left; c <= lastColumn; c++) if (r !== top || c !== left) this.set(r, c, text);
  }

  get isEmpty(): boolean {
    return this.rows.size === 0;
  }

  /**
   * The sheet's tables: the filled cells split at empty rows and empty columns (recursively, as
   * an XY cut), so that two tables side by side or one under another come out apart, each with
   * its own first row as header. Rows are dense arrays of the table's width.
   */
  tables(): string[][][] {
    if (this.rows.size === 0) return [];
    const rowIndexes = [...this.rows.keys()].sort((a, b) => a - b);
    let maxColumn = 0;
    for (const cells of this.rows.values()) maxColumn = Math.max(maxColumn, cells.length - 1);
    const tables: string[][][] = [];
    this.cut(rowIndexes, 0, maxColumn, tables, 0);
    return tables;
  }

  private cut(rowIndexes: number[], left: number, right: number, out: string[][][], depth: number): void {
    // The rows with text in [left, right], and the columns with text over those rows.
    const used = new Uint8Array(right - left + 1);
    const rows: number[] = [];
    for (const r of rowIndexes) {
      const cells = this.rows.get(r)!;
      let any = false;
      for (let c = left; c <= right && c < cells.length; c++) {
        if (cells[c] === undefined) continue;
        used[c - left] = 1;
        any = true;
      }
      if (any) rows.push(r);
    }
    if (rows.length === 0) return;
    const rowGroups = splitRuns(rows);
    const columnGroups = columnRuns(used, left);
    // Deep cuts only come from contrived sheets; their remaining pieces stay whole tables.
    if (depth < MAX_CUT_DEPTH && rowGroups.length > 1) {
      for (const group of rowGroups) this.cut(group, left, right, out, depth + 1);
      return;
    }
    if (depth < MAX_CUT_DEPTH && columnGroups.length > 1) {
      for (const [from, to] of columnGroups) this.cut(rows, from, to, out, depth + 1);
      return;
    }
    const first = columnGroups[0][0];
    const last = columnGroups[columnGroups.length - 1][1];
    out.push(
      rows.map((r) => {
        const cells = this.rows.get(r)!;
        const row: string[] = [];
        for (let c = first; c <= last; c++) row.push(cells[c] ?? '');
        return row;
      }),
    );
  }
}

/** Runs of consecutive row numbers. */
function splitRuns(rows: number[]): number[][] {
  const runs: number[][] = [[rows[0]]];
  for (let i = 1; i < rows.length; i++) {
    if (rows[i] === rows[i - 1] + 1) runs[runs.length - 1].push(rows[i]);
    else runs.push([rows[i]]);
  }
  return runs;
}

/** Runs of used columns, as [first, last] pairs. */
function columnRuns(used: Uint8Array, left: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let c = 0; c < used.length; c++) {
    if (!used[c]) continue;
    if (runs.length > 0 && runs[runs.length - 1][1] === left + c - 1) runs[runs.length - 1][1] = left + c;
    else runs.push([left + c, left + c]);
  }
  return runs;
}
