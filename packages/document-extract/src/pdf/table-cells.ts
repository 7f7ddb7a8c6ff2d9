import { assembleLine } from './line-assembly.js';
import type { TextRun } from './text-runs.js';

/** A table found on a page: its place, and its text as a full grid (spanned cells repeated). */
export interface PageTable {
  x: number;
  y: number;
  right: number;
  bottom: number;
  /** Rows of cell texts, all of one length; a merged cell's text is in every grid cell it covers. */
  rows: string[][];
  /** Size of the table's text (its largest), for ordering it among the lines. */
  size: number;
}

/** Rows of a table, column count and all, without its rows and columns that hold no text. */
export function trimGrid(rows: string[][]): string[][] {
  const kept = rows.filter((row) => row.some((cell) => cell !== ''));
  const width = Math.max(0, ...kept.map((r) => r.length));
  const usedColumns = Array.from({ length: width }, (_, c) => c).filter((c) => kept.some((row) => (row[c] ?? '') !== ''));
  // A column whose every text repeats its left neighbour's is one merged cell spread, not a column.
  const distinct = usedColumns.filter((c, i) => i === 0 || kept.some((row) => (row[c] ?? '') !== (row[usedColumns[i - 1]] ?? '')));
  return kept.map((row) => distinct.map((c) => row[c] ?? ''));
}

/** One character of a run, placed by its share of the run's width (pdf.js gives runs, not glyphs). */
export interface Glyph {
  run: TextRun;
  index: number;
  /** Horizontal centre and baseline. */
  cx: number;
  y: number;
}

export function glyphsOf(run: TextRun): Glyph[] {
  const n = run.str.length;
  const w = n ? run.width / n : 0;
  return Array.from({ length: n }, (_, i) => ({ run, index: i, cx: run.x + w * (i + 0.5), y: run.y }));
}

/**
 * Splits runs between places: `placeOf` gives each glyph's place (a cell number) or -1 to leave
 * it in the page's text. Consecutive glyphs of a run in the same place stay one run.
 */
export function splitRuns(runs: TextRun[], placeOf: (g: Glyph) => number): { placed: Map<number, TextRun[]>; rest: TextRun[] } {
  const placed = new Map<number, TextRun[]>();
  const rest: TextRun[] = [];
  for (const run of runs) {
    const glyphs = glyphsOf(run);
    const w = run.str.length ? run.width / run.str.length : 0;
    let start = 0;
    let place = glyphs.length ? placeOf(glyphs[0]) : -1;
    const flush = (end: number) => {
      if (end <= start) return;
      const piece: TextRun = { ...run, str: run.str.slice(start, end), x: run.x + w * start, width: w * (end - start) };
      if (place < 0) rest.push(piece);
      else {
        const list = placed.get(place) ?? [];
        list.push(piece);
        placed.set(place, list);
      }
    };
    for (let i = 1; i <= glyphs.length; i++) {
      const next = i < glyphs.length ? placeOf(glyphs[i]) : Number.NaN;
      // Spaces go with what they follow: a cell boundary inside a run falls on its spaces.
      if (i < glyphs.length && run.str[i] === ' ' && next !== place) continue;
      if (next !== place) {
        flush(i);
        start = i;
        place = next;
      }
    }
    if (glyphs.length === 0) rest.push(run);
  }
  return { placed, rest };
}

/** The text of one cell: its runs as lines top to bottom, joined by spaces (words hyphenated across a line end mended). */
export function cellText(runs: TextRun[]): string {
  const sorted = [...runs].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: TextRun[][] = [];
  for (const run of sorted) {
    const line = lines[lines.length - 1];
    if (line && Math.abs(run.y - line[0].y) <= Math.max(run.size, line[0].size) * 0.5) line.push(run);
    else lines.push([run]);
  }
  let out = '';
  for (const line of lines) {
    const text = assembleLine(line);
    if (!text) continue;
    if (!out) out = text;
    else if (/\p{Ll}-$/u.test(out) && /^\p{Ll}/u.test(text)) out = out.slice(0, -1) + text;
    else out += ' ' + text;
  }
  return out;
}

/**
 * A table split by a page break, joined: when a page's last block and the next page's first
 * (running headers and footers already left out) are tables with the same number of columns,
 * the second's rows go to the first, less a repeated header row. Pages read by OCR (null) part
 * tables.
 */
export function joinTablesAcrossPages<B extends Array<{ table?: PageTable }>>(pages: Array<B[] | null>): Array<B[] | null> {
  for (let i = 0; i + 1 < pages.length; i++) {
    const [page, next] = [pages[i], pages[i + 1]];
    const last = page?.[page.length - 1]?.[0]?.table;
    const first = next?.[0]?.[0]?.table;
    if (!last || !first || last.rows[0].length !== first.rows[0].length) continue;
    const repeatsHeader = first.rows[0].every((cell, c) => cell === last.rows[0][c]);
    last.rows.push(...first.rows.slice(repeatsHeader ? 1 : 0));
    next!.shift();
  }
  return pages;
}
