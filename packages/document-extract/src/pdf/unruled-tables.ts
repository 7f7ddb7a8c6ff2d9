import { assembleLine } from './line-assembly.js';
import { BULLET, DOT_LEADER, NUMBERED } from './list-markers.js';
import { findGutters, fragments } from './page-layout.js';
import { trimGrid, type PageTable } from './table-cells.js';
import type { TextRun } from './text-runs.js';

/** Pieces of a line further apart than this (in font sizes) are in different cells. */
const CELL_GAP = 0.9;
/** Least gap between two columns, in points. */
const MIN_COLUMN_GAP = 4;
/** Rows (lines with text in two columns or more) a table needs. */
const MIN_ROWS = 3;
/** Lines further apart than this many usual row steps end a table. */
const ROW_BREAK = 2.2;

/** Runs on one baseline within one cell: what a table is built of. */
interface Piece {
  runs: TextRun[];
  x: number;
  right: number;
  y: number;
  size: number;
  text: string;
}

interface Row {
  pieces: Piece[];
  y: number;
  size: number;
}

/** The runs of a page as pieces (split wherever the gap is wider than CELL_GAP sizes), in rows by baseline, top to bottom. */
function rowsOf(runs: TextRun[]): Row[] {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: TextRun[][] = [];
  for (const run of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(run.y - line[0].y) <= Math.max(run.size, line[0].size) * 0.4) line.push(run);
    else lines.push([run]);
  }
  return lines.map((line) => {
    const pieces: Piece[] = [];
    let current: TextRun[] = [];
    let right = -Infinity;
    const flush = () => {
      const text = assembleLine(current);
      if (text) pieces.push({ runs: current, x: Math.min(...current.map((r) => r.x)), right, y: current[0].y, size: Math.max(...current.map((r) => r.size)), text });
      current = [];
      right = -Infinity;
    };
    for (const run of [...line].sort((a, b) => a.x - b.x)) {
      const blank = !run.str.trim();
      // A blank run as wide as a cell gap (producers that space cells with one wide blank) is a gap.
      if (blank && run.width > run.size * CELL_GAP) {
        flush();
        continue;
      }
      if (blank) continue;
      if (current.length && run.x - right > run.size * CELL_GAP) flush();
      current.push(run);
      right = Math.max(right, run.x + run.width);
    }
    flush();
    const size = Math.max(0, ...pieces.map((p) => p.size));
    return { pieces, y: line[0].y, size };
  }).filter((row) => row.pieces.length > 0);
}

/** Share of the rows allowed to cross a column gap (a title, a header over several columns). */
const GAP_CROSSING = 0.15;

/**
 * Column boundaries of a set of rows: stretches of x at least MIN_COLUMN_GAP wide that hardly
 * any row's pieces cover (titles and headers over several columns may), with pieces on both
 * sides. Returned as the x of each gap's middle.
 */
function columnGaps(body: Row[]): number[] {
  const pieces = body.flatMap((r) => r.pieces);
  const minX = Math.floor(Math.min(...pieces.map((p) => p.x)));
  const maxX = Math.ceil(Math.max(...pieces.map((p) => p.right)));
  const span = maxX - minX;
  if (!(span > 0) || span > 20_000) return [];
  const cover = new Uint16Array(span + 1);
  for (const row of body) {
    // Each row counts once wherever it covers x.
    const seen = new Uint8Array(span + 1);
    for (const p of row.pieces) for (let x = Math.max(0, Math.floor(p.x) - minX); x < Math.min(span, Math.ceil(p.right) - minX); x++) seen[x] = 1;
    for (let x = 0; x <= span; x++) cover[x] += seen[x];
  }
  const allowed = Math.floor(body.length * GAP_CROSSING);
  const gaps: number[] = [];
  let start = -1;
  for (let x = 0; x <= span; x++) {
    const open = x < span && cover[x] <= allowed;
    if (open && start < 0) start = x;
    if (!open && start >= 0) {
      if (x - start >= MIN_COLUMN_GAP && start > 0 && x < span) gaps.push(minX + (start + x) / 2);
      start = -1;
    }
  }
  return gaps;
}

const columnOf = (gaps: number[], x: number) => gaps.filter((g) => x > g).length;

/** Columns of a piece: from the column of its left end to that of its right end. */
const spanOf = (gaps: number[], p: Piece) => [columnOf(gaps, p.x + 0.5), columnOf(gaps, p.right - 0.5)] as const;

/** A row that reads as a table's: two pieces or more. */
const isTableRow = (row: Row) => row.pieces.length >= 2;

/** Median of the steps between consecutive rows. */
function usualStep(rows: Row[]): number {
  const steps = rows.slice(1).map((r, i) => r.y - rows[i].y).filter((s) => s > 0).sort((a, b) => a - b);
  return steps.length ? steps[Math.floor(steps.length / 2)] : 0;
}

/**
 * Why a run of rows with columns is not a table (or null when it is one): a list (bullets or
 * numbers, then text), a table of contents or an index (entries with dot leaders and page
 * numbers), code (fixed pitch), or prose with wide gaps (long pieces over several columns).
 */
function notATable(rows: Row[], gaps: number[]): string | null {
  const pieces = rows.flatMap((r) => r.pieces);
  const firsts = rows.filter(isTableRow).map((r) => r.pieces[0].text);
  // Markers: bullets, numbers, and any one or two signs that are neither letters nor digits (check boxes, symbol-font glyphs).
  if (gaps.length === 1 && firsts.every((t) => BULLET.test(`${t} `) || NUMBERED.test(`${t} `) || /^[^\p{L}\p{N}]{1,2}$/u.test(t))) return 'list';
  if (gaps.length === 1 && rows.filter(isTableRow).every((r) => DOT_LEADER.test(r.pieces[0].text))) return 'contents';
  const mono = pieces.filter((p) => p.runs.every((r) => r.look?.monospace)).length;
  if (mono * 2 > pieces.length) return 'code';
  const crossing = pieces.filter((p) => {
    const [from, to] = spanOf(gaps, p);
    return to > from;
  }).length;
  if (crossing * 4 > pieces.length) return 'prose';
  // A column of long pieces is running text beside something else (the other column of a page).
  for (let c = 0; c <= gaps.length; c++) {
    const inColumn = pieces.filter((p) => columnOf(gaps, (p.x + p.right) / 2) === c);
    const words = inColumn.reduce((n, p) => n + (p.text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0), 0);
    if (inColumn.length >= MIN_ROWS && words / inColumn.length > 6) return 'prose';
  }
  return null;
}

/** A row's pieces set into `columns` cells (pieces in one cell joined by a space, left to right). */
function cellsOf(row: Row, gaps: number[]): string[] {
  const cells = Array.from({ length: gaps.length + 1 }, () => [] as string[]);
  for (const p of row.pieces) {
    // A piece over several columns (a spanning header) goes where its middle is.
    cells[columnOf(gaps, (p.x + p.right) / 2)].push(p.text);
  }
  return cells.map((c) => c.join(' '));
}

/** A table found in one stretch of rows. */
interface Found {
  /** Each row's baseline and cells. */
  rows: Array<{ y: number; cells: string[] }>;
  runs: TextRun[];
  x: number;
  right: number;
  size: number;
}

/** Least share of a table's rows with text on both sides of each of its column gaps. */
const PAIRED_ROWS = 0.5;

/**
 * The column gap that its rows do not bridge, if any: where fewer than half the rows with text
 * have text on both sides, the gap separates two things side by side (the columns of a page, a
 * list beside a table), not the columns of one table.
 */
function unbridgedGap(rows: Row[], gaps: number[]): number | null {
  for (const gap of gaps) {
    const sides = rows.map((r) => [r.pieces.some((p) => p.right <= gap), r.pieces.some((p) => p.x >= gap)]);
    const both = sides.filter(([l, r]) => l && r).length;
    if (both < sides.length * PAIRED_ROWS) return gap;
  }
  return null;
}

/**
 * Tables without rules, from how text lines up (as camelot's and tabula's stream modes do): rows
 * are lines, and a table is a run of three or more lines with pieces set apart in two columns or
 * more, the columns being gaps in x that (almost) no row's pieces cross. Lines above it whose
 * pieces keep to the columns (multi-line headers) join it, one row each. The page is read whole
 * first (a wide table's columns can look like a page's); a column gap most rows do not bridge
 * parts two things side by side, each read apart (a table in one column of a two-column page);
 * what is left is then read one page column at a time. Lists, tables of contents, code and prose
 * with wide gaps are left as text. Returns the tables, and the runs left outside them.
 */
export function unruledTables(runs: TextRun[]): { tables: PageTable[]; rest: TextRun[] } {
  if (runs.length === 0) return { tables: [], rest: runs };
  const found: Found[] = [];
  const taken = new Set<TextRun>();
  const read = (some: TextRun[]) => {
    for (const t of tablesIn(rowsOf(some.filter((r) => !taken.has(r))))) {
      found.push(t);
      for (const r of t.runs) taken.add(r);
    }
  };
  read(runs);
  // What is left, one page column at a time.
  const gutters = findGutters(fragments(runs.filter((r) => !taken.has(r)), { wideSpaces: true }));
  let from = -Infinity;
  for (const g of [...gutters, { start: Infinity, end: Infinity }]) {
    if (gutters.length > 0) read(runs.filter((r) => r.x >= from - 1 && r.x + r.width <= g.start + 1));
    from = g.end;
  }
  const tables = found.flatMap((t): PageTable[] => {
    const rows = trimGrid(t.rows.map((r) => r.cells));
    if (rows.length < 2 || (rows[0]?.length ?? 0) < 2) return [];
    return [{ x: t.x, y: t.rows[0].y - t.size, right: t.right, bottom: t.rows[t.rows.length - 1].y, rows, size: t.size }];
  });
  return { tables, rest: runs.filter((r) => !taken.has(r)) };
}

function tablesIn(rows: Row[]): Found[] {
  const out: Found[] = [];
  const step = usualStep(rows);
  let i = 0;
  while (i < rows.length) {
    if (!isTableRow(rows[i])) {
      i++;
      continue;
    }
    // The run of rows from here: table rows, and lone pieces between them (wrapped labels, section rows).
    let end = i + 1;
    let lastTableRow = i;
    while (end < rows.length && rows[end].y - rows[end - 1].y <= Math.max(step, rows[end].size * 1.2) * ROW_BREAK) {
      if (isTableRow(rows[end])) lastTableRow = end;
      else if (end - lastTableRow > 2) break;
      end++;
    }
    const body = rows.slice(i, lastTableRow + 1);
    const tableRows = body.filter(isTableRow);
    const gaps = tableRows.length >= MIN_ROWS ? columnGaps(tableRows) : [];
    const columnsUsed = (r: Row) => new Set(r.pieces.map((p) => columnOf(gaps, (p.x + p.right) / 2))).size;
    if (gaps.length === 0 || tableRows.filter((r) => columnsUsed(r) >= 2).length < MIN_ROWS) {
      i = lastTableRow + 1;
      continue;
    }
    // Two things side by side: each side is read on its own.
    const split = unbridgedGap(body, gaps);
    if (split !== null) {
      const pieces = body.flatMap((r) => r.pieces);
      out.push(...tablesIn(rowsOf(pieces.filter((p) => p.right <= split).flatMap((p) => p.runs))), ...tablesIn(rowsOf(pieces.filter((p) => p.x >= split).flatMap((p) => p.runs))));
      i = lastTableRow + 1;
      continue;
    }
    if (notATable(body, gaps)) {
      i = lastTableRow + 1;
      continue;
    }
    // Header lines above: close, and keeping to the columns (no piece wider than half the table).
    const left = Math.min(...tableRows.flatMap((r) => r.pieces.map((p) => p.x)));
    const right = Math.max(...tableRows.flatMap((r) => r.pieces.map((p) => p.right)));
    let start = i;
    while (start > 0) {
      const above = rows[start - 1];
      const near = rows[start].y - above.y <= Math.max(step, above.size * 1.2) * 1.6;
      const inside = above.pieces.every((p) => p.x >= left - above.size * 2 && p.right <= right + above.size && p.right - p.x < (right - left) * 0.5);
      if (!near || !inside || above.size > rows[start].size * 1.25) break;
      start--;
    }
    const tableLines = rows.slice(start, lastTableRow + 1);
    out.push({
      rows: tableLines.map((r) => ({ y: r.y, cells: cellsOf(r, gaps) })),
      runs: tableLines.flatMap((r) => r.pieces.flatMap((p) => p.runs)),
      x: Math.min(left, ...tableLines.flatMap((r) => r.pieces.map((p) => p.x))),
      right,
      size: Math.max(...tableLines.map((r) => r.size)),
    });
    i = lastTableRow + 1;
  }
  return out;
}
