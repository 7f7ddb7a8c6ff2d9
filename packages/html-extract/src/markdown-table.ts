/** Columns wider than this are not padded: one long cell would otherwise pad every row of its column. */
const MAX_ALIGNED_WIDTH = 60;
/** Browsers honour colspan up to 1000; a markdown table that wide is no longer readable. */
const MAX_COLSPAN = 32;
const MAX_ROWSPAN = 1000;

export interface TableShape {
  caption: Element | null;
  /** The table's own `<tr>` (not those of nested tables), `<thead>` rows first as browsers show them. */
  rows: Element[];
  /** Whether the first row is a header (in `<thead>`, or all `<th>`). */
  headed: boolean;
  /** Cells in the widest row. */
  widest: number;
}

const isCell = (el: Element) => el.localName === 'td' || el.localName === 'th';

export function tableShape(table: Element): TableShape {
  let caption: Element | null = null;
  let rows: Element[] = [];
  let head: Element[] | null = null;
  for (let child = table.firstElementChild; child; child = child.nextElementSibling) {
    const tag = child.localName;
    if (tag === 'caption') caption ??= child;
    else if (tag === 'tr') rows.push(child);
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      for (let row = child.firstElementChild; row; row = row.nextElementSibling) {
        if (row.localName === 'tr') (tag === 'thead' ? (head ??= []) : rows).push(row);
      }
    }
  }
  // <thead> rows go first, wherever the <thead> stands.
  if (head) rows = head.concat(rows);
  let widest = 0;
  let allHeaderCells = rows.length > 0;
  for (let r = 0; r < rows.length; r++) {
    let cells = 0;
    for (let cell = rows[r].firstElementChild; cell; cell = cell.nextElementSibling) {
      if (!isCell(cell)) continue;
      cells++;
      if (r === 0 && cell.localName !== 'th') allHeaderCells = false;
    }
    if (r === 0 && cells === 0) allHeaderCells = false;
    if (cells > widest) widest = cells;
  }
  return { caption, rows, headed: head !== null || allHeaderCells, widest };
}

/**
 * Tables that lay out a page rather than hold data: one column, or marked as presentation (cells
 * holding prose or tables say so too, found while they are rendered). Their cells are rendered
 * as ordinary blocks; squeezing them into one table row would put whole articles on one line.
 */
export function isLayoutTable(table: Element, { widest }: TableShape): boolean {
  if (widest < 2) return true;
  const role = table.getAttribute('role');
  return role === 'presentation' || role === 'none';
}

function span(cell: Element, name: string, max: number): number {
  const value = cell.getAttribute(name);
  return value === null ? 1 : Math.min(Math.max(Number.parseInt(value, 10) || 1, 1), max);
}

/** Column alignment from the header row's `align` attribute or inline `text-align`. */
function alignmentOf(cell: Element): string {
  const value = (cell.getAttribute('align') ?? /text-align\s*:\s*(\w+)/i.exec(cell.getAttribute('style') ?? '')?.[1] ?? '').toLowerCase();
  return value === 'center' || value === 'right' || value === 'left' ? value : '';
}

const DASHES: string[] = [];

function separatorCell(width: number, align: string | undefined): string {
  const dashes = (DASHES[width] ??= '-'.repeat(width));
  if (align === 'center') return `:${dashes.slice(2)}:`;
  if (align === 'right') return `${dashes.slice(1)}:`;
  if (align === 'left') return `:${dashes.slice(1)}`;
  return dashes;
}

/**
 * A document's table of one cell frames its content (a boxed note, a list laid in a box): it is
 * written as blocks. Every other table of a document holds data.
 */
export function isFrameTable({ rows, widest }: TableShape): boolean {
  return widest < 2 && rows.length < 2;
}

/** Cells where rows above reach down with a rowspan: empty, or the spanning cell's text when spread. */
function fillCovered(covered: number[], coveredText: string[] | null, texts: string[], rowStart: number): void {
  while (covered[texts.length - rowStart] > 0) {
    const column = texts.length - rowStart;
    covered[column]--;
    texts.push(coveredText?.[column] ?? '');
  }
}

/**
 * A GFM table of the rows, each cell rendered by `cellMarkdown` (one line, pipes escaped). A
 * colspan leaves empty cells after its cell and a rowspan empty cells below, so columns stay
 * aligned; with `spread`, those cells repeat the merged cell's text instead. Without a header
 * row, an empty one is made (GFM requires one). Returns no lines when every cell is empty.
 */
export function formatTable({ rows, headed }: TableShape, cellMarkdown: (cell: Element) => string, spread = false): string[] {
  // The cells of all rows in one array, row by row: tables are many and mostly small.
  const texts: string[] = [];
  const rowEnds: number[] = [];
  let aligns: string[] | null = null;
  /** Rows still covered by a rowspan, per column. */
  let covered: number[] | null = null;
  /** With `spread`: the text of the cell a rowspan comes down from, per column. */
  const coveredText: string[] | null = spread ? [] : null;
  let anyText = false;
  let columns = 0;
  for (let r = 0; r < rows.length; r++) {
    const start = texts.length;
    for (let cell = rows[r].firstElementChild; cell; cell = cell.nextElementSibling) {
      if (!isCell(cell)) continue;
      if (covered) fillCovered(covered, coveredText, texts, start);
      const text = cellMarkdown(cell);
      if (text) anyText = true;
      const column = texts.length - start;
      if (r === 0 && cell.hasAttributes()) (aligns ??= [])[column] = alignmentOf(cell);
      const colspan = span(cell, 'colspan', MAX_COLSPAN);
      const rowspan = span(cell, 'rowspan', MAX_ROWSPAN);
      texts.push(text);
      for (let i = 1; i < colspan; i++) texts.push(spread ? text : '');
      if (rowspan > 1) {
        for (let i = 0; i < colspan; i++) {
          (covered ??= [])[column + i] = rowspan - 1;
          if (coveredText) coveredText[column + i] = text;
        }
      }
    }
    if (covered) fillCovered(covered, coveredText, texts, start);
    if (texts.length === start) continue;
    columns = Math.max(columns, texts.length - start);
    rowEnds.push(texts.length);
  }
  if (!anyText) return [];

  const widths: number[] = new Array<number>(columns).fill(3);
  for (let r = 0, start = 0; r < rowEnds.length; start = rowEnds[r++]) {
    for (let i = start; i < rowEnds[r]; i++) if (texts[i].length > widths[i - start]) widths[i - start] = texts[i].length;
  }
  for (let c = 0; c < columns; c++) if (widths[c] > MAX_ALIGNED_WIDTH) widths[c] = 3;
  // Rows are padded to the full width only when that stays in proportion to the cells there are.
  const padRows = rowEnds.length * columns <= 4 * texts.length + 64;
  const cells: string[] = [];
  const format = (from: number, to: number, count: number) => {
    for (let c = 0; c < count; c++) {
      const text = from + c < to ? texts[from + c] : '';
      cells[c] = text.length < widths[c] ? text.padEnd(widths[c]) : text;
    }
    cells.length = count;
    return `| ${cells.join(' | ')} |`;
  };
  const lines: string[] = [];
  let start = 0;
  if (headed) start = rowEnds[0];
  lines.push(format(0, start, columns));
  for (let c = 0; c < columns; c++) cells[c] = separatorCell(widths[c], aligns?.[c]);
  cells.length = columns;
  lines.push(`| ${cells.join(' | ')} |`);
  for (let r = headed ? 1 : 0; r < rowEnds.length; start = rowEnds[r++]) {
    lines.push(format(start, rowEnds[r], padRows ? columns : rowEnds[r] - start));
  }
  return lines;
}
