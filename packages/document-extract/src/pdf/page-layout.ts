import { assembleLine } from './line-assembly.js';
import { DOT_LEADER, startsListItem } from './list-markers.js';
import type { PageTable } from './table-cells.js';
import type { PageRuns, TextRun } from './text-runs.js';

export interface TextLine {
  text: string;
  x: number;
  right: number;
  y: number;
  /** Size of the line's largest glyphs. */
  size: number;
  /** Structure role shared by most of the line's text, when the PDF is tagged. */
  role?: string;
  /** Most of the line's text is in a bold font (known only where the page's fonts were read). */
  bold?: boolean;
  /** Most of the line's text is in a fixed-pitch font (code). */
  monospace?: boolean;
  /** Most of the line is inside a frame around a figure or a boxed note (markdown only). */
  framed?: boolean;
  /** The line is a table found on the page (markdown only): it stands alone as a block. */
  table?: PageTable;
}

/** Lines that read as one unit: a paragraph, a heading, a list item. */
export type TextBlock = TextLine[];

/** Runs that follow each other on one baseline, left to right: a piece of one line of one column. */
export interface Fragment {
  runs: TextRun[];
  x: number;
  right: number;
  y: number;
  size: number;
  /** A table, placed among the text as one fragment of its own. */
  table?: PageTable;
}

/** Runs further apart than this (in font sizes) start a new fragment: a column gutter, a table cell. */
const FRAGMENT_GAP = 1.5;
/** Narrowest gap between columns, in points. */
const MIN_GUTTER = 7;
/** Share of fragments allowed to cross a gutter (titles, full-width captions, a centred page number). */
const GUTTER_CROSSING = 0.15;
/** Fragments wider than this share of the text's width are full-width lines, not column lines. */
const FULL_WIDTH = 0.6;
/** Least share of a page's fragments each side of a gutter must hold. */
const COLUMN_SHARE = 0.12;
/** Baselines closer than this share of the font size are one line (superscripts included). */
const SAME_LINE = 0.5;
/** A gap between lines wider than this many usual line steps starts a new paragraph. */
const PARAGRAPH_GAP = 1.4;

/**
 * Runs joined into fragments. With `wideSpaces`, a run of blanks wider than the fragment gap
 * (some producers fill a table's cell gaps with one wide space) ends a fragment as a gap would.
 */
export function fragments(runs: TextRun[], { wideSpaces = false } = {}): Fragment[] {
  const out: Fragment[] = [];
  let current: Fragment | null = null;
  for (const run of runs) {
    if (wideSpaces && !run.str.trim() && run.width > run.size * FRAGMENT_GAP) current = null;
    if (!run.str.trim() && !current) continue;
    const gap = current ? run.x - current.right : 0;
    // Same baseline, or a smaller raised or lowered glyph (superscript, footnote mark, index).
    const sameLine = current && (Math.abs(run.y - current.y) <= run.size * 0.2 || (run.size < current.size * 0.9 && Math.abs(run.y - current.y) <= current.size * 0.6));
    if (current && sameLine && gap <= run.size * FRAGMENT_GAP && gap >= -run.size * 0.5) {
      current.runs.push(run);
      current.right = Math.max(current.right, run.x + run.width);
      current.size = Math.max(current.size, run.size);
      continue;
    }
    if (!run.str.trim()) continue;
    current = { runs: [run], x: run.x, right: run.x + run.width, y: run.y, size: run.size };
    out.push(current);
  }
  return out;
}

export interface Gutter {
  start: number;
  end: number;
}

/**
 * Vertical gutters between columns: stretches of x that (almost) no fragment covers, with a fair
 * share of the page's fragments wholly on each side, side by side on the page. Lines wider than
 * a column (titles, listings, full-width captions) are left out of the search, so that a page
 * with large full-width parts still shows its gutter; there must be fewer of them than of the rest.
 */
export function findGutters(all: Fragment[]): Gutter[] {
  if (all.length < 8) return [];
  const pageLeft = Math.min(...all.map((f) => f.x));
  const pageRight = Math.max(...all.map((f) => f.right));
  const frags = all.filter((f) => f.right - f.x < (pageRight - pageLeft) * FULL_WIDTH);
  if (frags.length < 8 || frags.length < all.length * 0.5) return [];
  const minX = Math.floor(Math.min(...frags.map((f) => f.x)));
  const maxX = Math.ceil(Math.max(...frags.map((f) => f.right)));
  const span = maxX - minX;
  if (span <= 0 || span > 20_000) return [];
  const cover = new Uint32Array(span + 1);
  for (const f of frags) for (let x = Math.max(0, Math.floor(f.x) - minX); x < Math.min(span, Math.ceil(f.right) - minX); x++) cover[x]++;
  const allowed = Math.floor(frags.length * GUTTER_CROSSING);
  const gutters: Gutter[] = [];
  let start = -1;
  for (let x = 0; x <= span; x++) {
    const open = x < span && cover[x] <= allowed;
    if (open && start < 0) start = x;
    if (!open && start >= 0) {
      if (x - start >= MIN_GUTTER && start > 0 && x < span) gutters.push({ start: start + minX, end: x + minX });
      start = -1;
    }
  }
  return gutters.filter((g, i) => {
    const from = i > 0 ? gutters[i - 1].end : minX;
    const to = i + 1 < gutters.length ? gutters[i + 1].start : maxX;
    const left = frags.filter((f) => f.right <= g.start + 1 && f.x >= from - 1);
    const right = frags.filter((f) => f.x >= g.end - 1 && f.right <= to + 1);
    const need = Math.max(3, frags.length * COLUMN_SHARE);
    if (left.length < need || right.length < need) return false;
    // Columns of text have many full lines (a quarter at least, beside figures and listings);
    // the short cells of a table do not.
    const upperWidth = (fs: Fragment[]) => fs.map((f) => f.right - f.x).sort((a, b) => a - b)[Math.floor(fs.length * 0.75)];
    if (upperWidth(left) < 0.6 * (g.start - from) || upperWidth(right) < 0.6 * (to - g.end)) return false;
    // Columns stand side by side: their vertical extents overlap for a good part.
    const top = (fs: Fragment[]) => Math.min(...fs.map((f) => f.y));
    const bottom = (fs: Fragment[]) => Math.max(...fs.map((f) => f.y));
    const overlap = Math.min(bottom(left), bottom(right)) - Math.max(top(left), top(right));
    return overlap > 0.3 * Math.min(bottom(left) - top(left), bottom(right) - top(right));
  });
}

/** Column index of a fragment, or -1 when it crosses a gutter. */
function columnOf(f: Fragment, gutters: Gutter[]): number {
  for (let i = 0; i < gutters.length; i++) {
    if (f.right <= gutters[i].start + 1) return i;
    if (f.x < gutters[i].end - 1) return -1;
  }
  return gutters.length;
}

/** Lines of one column stretch: fragments grouped by baseline, top to bottom. */
function linesOf(frags: Fragment[]): TextLine[] {
  const sorted = [...frags].sort((a, b) => a.y - b.y || a.x - b.x);
  const groups: Fragment[][] = [];
  for (const f of sorted) {
    const last = groups[groups.length - 1];
    const main = last?.reduce((m, g) => (g.size > m.size ? g : m));
    if (main && !f.table && !main.table && Math.abs(f.y - main.y) <= Math.max(main.size, f.size) * SAME_LINE) last.push(f);
    else groups.push([f]);
  }
  return groups
    .map((group): TextLine => {
      if (group[0].table) return { text: '', x: group[0].x, right: group[0].right, y: group[0].y, size: group[0].size, table: group[0].table };
      const runs = group.flatMap((f) => f.runs);
      const main = group.reduce((m, g) => (g.size > m.size ? g : m));
      return {
        text: assembleLine(runs, { rightToLeft: mostlyRightToLeft(runs) }),
        x: Math.min(...group.map((f) => f.x)),
        right: Math.max(...group.map((f) => f.right)),
        y: main.y,
        size: main.size,
        role: majorityRole(runs),
        ...fontOfLine(runs),
      };
    })
    .filter((l) => l.text.length > 0 || l.table);
}

/** Whether most of a line's letters are in runs marked right-to-left. */
function mostlyRightToLeft(runs: TextRun[]): boolean {
  let rtl = 0;
  let total = 0;
  for (const r of runs) {
    const n = r.str.trim().length;
    total += n;
    if (r.rtl) rtl += n;
  }
  return rtl * 2 > total;
}

/** Bold, fixed pitch and framed when most of the line's characters are (runs of fonts not read count as neither). */
function fontOfLine(runs: TextRun[]): Pick<TextLine, 'bold' | 'monospace' | 'framed'> {
  let total = 0;
  let bold = 0;
  let monospace = 0;
  for (const r of runs) {
    const n = r.str.trim().length;
    total += n;
    if (r.look?.bold) bold += n;
    if (r.look?.monospace) monospace += n;
  }
  const framed = runs.filter((r) => r.framed).reduce((n, r) => n + r.str.trim().length, 0);
  return { ...(bold * 2 > total ? { bold: true } : {}), ...(monospace * 2 > total ? { monospace: true } : {}), ...(framed * 2 > total ? { framed: true } : {}) };
}

function majorityRole(runs: TextRun[]): string | undefined {
  const weight = new Map<string, number>();
  for (const r of runs) if (r.role) weight.set(r.role, (weight.get(r.role) ?? 0) + r.str.length);
  let best: string | undefined;
  let max = 0;
  const total = runs.reduce((s, r) => s + r.str.length, 0);
  for (const [role, w] of weight) if (w > max) [best, max] = [role, w];
  return max * 2 >= total ? best : undefined;
}

/**
 * Paragraphs of one column stretch. A new one starts where the gap to the previous line is
 * clearly wider than the page's usual line step, the size or structure role changes, the line
 * is indented against the one before (first-line indent), the line before stopped well short of
 * the column's right edge (end of a paragraph), or at list items and table-of-contents lines.
 */
function paragraphs(lines: TextLine[], lineStep: number): TextBlock[] {
  if (lines.length === 0) return [];
  const left = Math.min(...lines.map((l) => l.x));
  const right = Math.max(...lines.map((l) => l.right));
  const blocks: TextBlock[] = [];
  for (const line of lines) {
    const block = blocks[blocks.length - 1];
    const prev = block?.[block.length - 1];
    if (!prev || line.table || prev.table) {
      blocks.push([line]);
      continue;
    }
    const gap = line.y - prev.y;
    const step = Math.max(lineStep, prev.size * 1.05);
    const apart = gap <= 0 || gap > step * PARAGRAPH_GAP || Math.abs(line.size - prev.size) > Math.max(1, prev.size * 0.12) || line.role !== prev.role;
    // Centred lines (titles) are short and shifted without ending or starting anything.
    const centred = (l: TextLine) => l.x - left > l.size * 2 && Math.abs(l.x - left - (right - l.right)) < l.size * 2;
    const inItem = startsListItem(block[0].text);
    const indented = !inItem && !centred(line) && line.x > prev.x + line.size * 0.8 && line.x - left < line.size * 4;
    const prevShort = !centred(prev) && prev.right < right - Math.max(line.size * 3, (right - left) * 0.2) && /^[\p{Lu}\p{N}"'“‘([]/u.test(line.text);
    if (apart || indented || prevShort || startsListItem(line.text) || DOT_LEADER.test(prev.text) || DOT_LEADER.test(line.text)) blocks.push([line]);
    else block.push(line);
  }
  return blocks;
}

/** The most common distance between consecutive lines of body text, the page's line step. */
function usualLineStep(columns: TextLine[][]): number {
  const steps = new Map<number, number>();
  for (const all of columns) {
    const lines = all.filter((l) => !l.table);
    for (let i = 1; i < lines.length; i++) {
      const step = Math.round((lines[i].y - lines[i - 1].y) * 2) / 2;
      if (step > 0 && step < lines[i].size * 3) steps.set(step, (steps.get(step) ?? 0) + 1);
    }
  }
  let best = 0;
  let count = 0;
  for (const [step, n] of steps) if (n > count || (n === count && step < best)) [best, count] = [step, n];
  return best;
}

/**
 * Reading order of one page. Where the page has clear column gutters, it is cut into horizontal
 * bands at the lines that cross them (titles, full-width figures), and each band is read column
 * by column, left first. Rotated text comes last, one line per run of text.
 */
export function layoutPage(runs: PageRuns, tables: PageTable[] = []): TextBlock[] {
  const text = [...fragments(runs.upright), ...fragments(runs.fields)];
  const gutters = findGutters(text);
  const frags = [...text, ...tables.map((table): Fragment => ({ runs: [], x: table.x, right: table.right, y: table.y, size: table.size, table }))];
  const stretches: TextLine[][] = [];
  if (gutters.length === 0) {
    stretches.push(linesOf(frags));
  } else {
    // By top edge: a line's is a size above its baseline, a table's is its y.
    const top = (f: Fragment) => (f.table ? f.y : f.y - f.size);
    const sorted = [...frags].sort((a, b) => top(a) - top(b));
    let band: Fragment[][] = [];
    let spanning: Fragment[] = [];
    const flushBand = () => {
      for (const column of band) if (column?.length) stretches.push(linesOf(column));
      band = [];
    };
    const flushSpanning = () => {
      if (spanning.length) stretches.push(linesOf(spanning));
      spanning = [];
    };
    for (const f of sorted) {
      const column = columnOf(f, gutters);
      if (column >= 0) {
        flushSpanning();
        (band[column] ??= []).push(f);
      } else {
        flushBand();
        spanning.push(f);
      }
    }
    flushSpanning();
    flushBand();
  }
  const step = usualLineStep(stretches);
  const blocks = stretches.flatMap((lines) => paragraphs(lines, step));
  const rotated = fragments(runs.rotated).map((f) => assembleLine(f.runs)).filter((t) => t.length > 0);
  if (rotated.length) blocks.push(rotated.map((text) => ({ text, x: 0, right: 0, y: Infinity, size: 0 })));
  return blocks;
}
