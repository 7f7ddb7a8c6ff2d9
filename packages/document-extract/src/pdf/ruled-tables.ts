import type { Rule } from './page-drawing.js';
import { cellText, splitRuns, trimGrid, type PageTable } from './table-cells.js';
import type { TextRun } from './text-runs.js';

/** A rectangle drawn around something that is not a table. */
export interface Frame {
  x: number;
  y: number;
  right: number;
  bottom: number;
}

/** Rules this close (points) are one line; ends this close meet. */
const SNAP = 2;
/** A cell edge is drawn when rules cover this share of it. */
const EDGE_COVER = 0.6;

interface Segment {
  at: number;
  from: number;
  to: number;
}

/** Rules of one direction, those on one line with touching or overlapping extents joined. */
function joinRules(rules: Rule[]): Segment[] {
  const sorted = [...rules].sort((a, b) => a.at - b.at || a.from - b.from);
  const lines: Segment[][] = [];
  for (const r of sorted) {
    const line = lines.find((l) => Math.abs(l[0].at - r.at) <= SNAP);
    if (line) line.push({ at: r.at, from: r.from, to: r.to });
    else lines.push([{ at: r.at, from: r.from, to: r.to }]);
  }
  const out: Segment[] = [];
  for (const line of lines) {
    const at = line.reduce((s, r) => s + r.at, 0) / line.length;
    let current: Segment | null = null;
    for (const r of [...line].sort((a, b) => a.from - b.from)) {
      if (current && r.from <= current.to + SNAP) current.to = Math.max(current.to, r.to);
      else out.push((current = { at, from: r.from, to: r.to }));
    }
  }
  return out;
}

const crosses = (h: Segment, v: Segment) => v.at >= h.from - SNAP && v.at <= h.to + SNAP && h.at >= v.from - SNAP && h.at <= v.to + SNAP;

/** Positions closer than SNAP merged to their mean, ascending. */
function snapPositions(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (const v of sorted) {
    const g = groups[groups.length - 1];
    if (g && v - g[g.length - 1] <= SNAP) g.push(v);
    else groups.push([v]);
  }
  return groups.map((g) => g.reduce((s, v) => s + v, 0) / g.length);
}

/** Share of [from, to] that segments on line `at` cover. */
function coverage(segments: Segment[], at: number, from: number, to: number): number {
  const length = to - from;
  if (length <= 0) return 1;
  let covered = 0;
  for (const s of segments) {
    if (Math.abs(s.at - at) > SNAP) continue;
    covered += Math.max(0, Math.min(to, s.to) - Math.max(from, s.from));
  }
  return covered / length;
}

interface Grid {
  xs: number[];
  ys: number[];
  /** Region of each grid cell (row-major); cells joined by a missing edge share one. */
  region: number[];
}

/** The grid that a set of crossing rules draws, with merged cells where an inner edge is not drawn. */
function gridOf(hs: Segment[], vs: Segment[]): Grid | null {
  const xs = snapPositions([...vs.map((v) => v.at), ...hs.flatMap((h) => [h.from, h.to])]);
  const ys = snapPositions([...hs.map((h) => h.at), ...vs.flatMap((v) => [v.from, v.to])]);
  const cols = xs.length - 1;
  const rows = ys.length - 1;
  if (cols < 1 || rows < 1 || cols * rows > 20_000) return null;
  const parent = Array.from({ length: rows * cols }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const join = (a: number, b: number) => {
    parent[find(a)] = find(b);
  };
  const inset = SNAP;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (c + 1 < cols && coverage(vs, xs[c + 1], ys[r] + inset, ys[r + 1] - inset) < EDGE_COVER) join(r * cols + c, r * cols + c + 1);
      if (r + 1 < rows && coverage(hs, ys[r + 1], xs[c] + inset, xs[c + 1] - inset) < EDGE_COVER) join(r * cols + c, (r + 1) * cols + c);
    }
  }
  return { xs, ys, region: parent.map((_, i) => find(i)) };
}

/** Lines two cells of one row may share before the row is taken for several rows drawn without rules. */
const SHARED_LINES = 5;

/**
 * Whether some row of the grid holds rows of text of its own: two of its cells with many lines on
 * the same baselines. Such rules are a frame or a few separators around a table set by
 * alignment (a header rule, a rule under the totals), not its cells.
 */
function holdsRowsOfItsOwn(placed: Map<number, TextRun[]>, region: number[], cols: number): boolean {
  const baselines = new Map([...placed].map(([id, runs]) => [id, new Set(runs.filter((r) => r.str.trim()).map((r) => Math.round(r.y)))]));
  const rows = region.length / cols;
  for (let r = 0; r < rows; r++) {
    const ids = [...new Set(region.slice(r * cols, (r + 1) * cols))].filter((id) => (baselines.get(id)?.size ?? 0) >= SHARED_LINES);
    for (let a = 0; a < ids.length; a++) {
      for (let b = a + 1; b < ids.length; b++) {
        const other = baselines.get(ids[b])!;
        let shared = 0;
        for (const y of baselines.get(ids[a])!) if (other.has(y) || other.has(y - 1) || other.has(y + 1)) shared++;
        if (shared >= SHARED_LINES) return true;
      }
    }
  }
  return false;
}

const locate = (edges: number[], v: number) => {
  if (v < edges[0] || v > edges[edges.length - 1]) return -1;
  let i = 0;
  while (i < edges.length - 2 && v > edges[i + 1]) i++;
  return i;
};

/**
 * Tables drawn with rules both ways (a lattice): rules that cross each other are grouped, their
 * positions make a grid, and grid cells whose shared edge is not drawn are one merged cell. Text
 * is placed glyph by glyph into the cells (a run may cross cell edges); a merged cell's text goes
 * into every grid cell it covers, as Docling writes it, but for a cell across the whole width (a
 * title or section row), which is written once. A group is a table when it has two rows
 * and two columns holding text; a single frame (a boxed note, a figure's border) is not one.
 * Returns the tables, and the runs left outside them.
 */
export function ruledTables(rules: Rule[], runs: TextRun[]): { tables: PageTable[]; rest: TextRun[]; frames: Frame[] } {
  const hs = joinRules(rules.filter((r) => r.horizontal));
  const vs = joinRules(rules.filter((r) => !r.horizontal));
  if (hs.length < 2 || vs.length < 2) return { tables: [], rest: runs, frames: [] };
  // Connected groups of crossing rules.
  const all = [...hs.map((s) => ({ s, h: true })), ...vs.map((s) => ({ s, h: false }))];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < hs.length; i++) for (let j = 0; j < vs.length; j++) if (crosses(hs[i], vs[j])) parent[find(i)] = find(hs.length + j);
  const groups = new Map<number, { hs: Segment[]; vs: Segment[] }>();
  all.forEach((item, i) => {
    const g = groups.get(find(i)) ?? { hs: [], vs: [] };
    (item.h ? g.hs : g.vs).push(item.s);
    groups.set(find(i), g);
  });

  const tables: PageTable[] = [];
  const frames: Frame[] = [];
  let rest = runs;
  for (const group of groups.values()) {
    if (group.hs.length < 2 || group.vs.length < 2) continue;
    const grid = gridOf(group.hs, group.vs);
    if (!grid) continue;
    const { xs, ys, region } = grid;
    const cols = xs.length - 1;
    const split = splitRuns(rest, (g) => {
      const c = locate(xs, g.cx);
      // A glyph's middle is about a third of its size above the baseline.
      const r = locate(ys, g.y - g.run.size * 0.3);
      return c < 0 || r < 0 ? -1 : region[r * cols + c];
    });
    if (holdsRowsOfItsOwn(split.placed, region, cols)) continue;
    const texts = new Map([...split.placed].map(([place, placed]) => [place, cellText(placed)]));
    // A cell across the whole width (a title or section row) is written once, in its first column.
    const widths = new Map<number, number>();
    region.forEach((id) => widths.set(id, (widths.get(id) ?? 0) + 1));
    const rowsOf = (id: number) => new Set(region.flatMap((other, i) => (other === id ? [Math.floor(i / cols)] : []))).size;
    const fullWidth = new Set([...widths].filter(([id, n]) => cols > 1 && n === cols * rowsOf(id)).map(([id]) => id));
    const grid2d = Array.from({ length: ys.length - 1 }, (_, r) =>
      Array.from({ length: cols }, (_, c) => {
        const id = region[r * cols + c];
        return fullWidth.has(id) && c > 0 ? '' : (texts.get(id) ?? '');
      }),
    );
    const rows = trimGrid(grid2d);
    if (rows.length < 2 || (rows[0]?.length ?? 0) < 2) {
      // Rules around text that make no table: a frame (a figure, a boxed note).
      frames.push({ x: xs[0], y: ys[0], right: xs[xs.length - 1], bottom: ys[ys.length - 1] });
      continue;
    }
    const size = Math.max(0, ...[...split.placed.values()].flat().map((r) => r.size));
    tables.push({ x: xs[0], y: ys[0], right: xs[xs.length - 1], bottom: ys[ys.length - 1], rows, size });
    rest = split.rest;
  }
  return { tables, rest, frames };
}
