import type { PdfJs, PdfPage } from './open-pdf.js';
import { readDrawing, RTL_LETTER, type FontLook } from './page-drawing.js';
import { findGutters, fragments, type Fragment } from './page-layout.js';
import { ruledTables } from './ruled-tables.js';
import type { PageTable } from './table-cells.js';
import type { PageRuns, TextRun } from './text-runs.js';
import { turnedUpright } from './turned-page.js';
import { unruledTables } from './unruled-tables.js';

/** What the pages of one document teach about it: its fonts, read once each. */
export interface DocumentFonts {
  looks: Map<string, FontLook>;
  /** Fonts of pages whose drawing was read (found or not: a font pdf.js could not load is not asked for again). */
  seen: Set<string>;
  /** Right-to-left words pdf.js spells wrongly, with their right spelling (see PageDrawingDetail). */
  rtlWords: Map<string, string>;
}

export const newDocumentFonts = (): DocumentFonts => ({ looks: new Map(), seen: new Set(), rtlWords: new Map() });

/** Right-to-left runs marked as such, their words spelled as drawn. */
function markRightToLeft(runs: TextRun[], words: Map<string, string>): void {
  for (const r of runs) {
    if (!RTL_LETTER.test(r.str)) continue;
    r.rtl = true;
    if (words.size) r.str = r.str.split(' ').map((w) => words.get(w) ?? w).join(' ');
  }
}

/** Rows of text with two pieces or more within one column before a page may hold a table. */
const TABLE_ROWS = 3;
/** Words a piece of a table row has at most, when judging whether a page may hold a table. */
const TABLE_CELL_WORDS = 8;

/**
 * Whether the text's layout looks like a table somewhere: several rows with pieces set apart
 * inside one column (a gap wider than words have, not a column gutter). Only such pages have
 * their drawing read for rules, which costs about as much again as reading their text.
 */
function mayHoldTable(frags: Fragment[]): boolean {
  const gutters = findGutters(frags);
  const sorted = [...frags].sort((a, b) => a.y - b.y || a.x - b.x);
  let rows = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    while (j < sorted.length && Math.abs(sorted[j].y - sorted[i].y) <= sorted[i].size * 0.3) j++;
    const row = sorted.slice(i, j);
    const column = (f: Fragment) => gutters.filter((g) => f.x >= g.end - 1).length;
    // Pieces of prose beside each other (two page columns the gutter search missed) are no table row.
    // Words are counted last: most rows are one piece, and counting them was most of this test.
    const short = () => row.every((f) => f.runs.reduce((n, r) => n + (r.str.match(/[\p{L}\p{N}]+/gu)?.length ?? 0), 0) <= TABLE_CELL_WORDS);
    if (row.some((f, k) => k > 0 && column(f) === column(row[k - 1])) && short()) rows++;
    if (rows >= TABLE_ROWS) return true;
    i = j;
  }
  return false;
}

/** Longest line taken for a heading when deciding whether a page's fonts are worth reading. */
const HEADING_LINE_CHARS = 120;

/**
 * Whether a line of the page could be a heading set in a font not seen yet (its weight is then
 * needed): a line standing alone on its baseline, short, at least the size of the page's main
 * text, mostly in a font other than that text's. Words in italics inside a paragraph, a new font
 * in a table or a figure do not count, so a book's pages rarely have their drawing read for it.
 */
function mayBeHeadingInNewFont(frags: Fragment[], seen: Set<string>): boolean {
  const chars = new Map<string, number>();
  const sizes = new Map<number, number>();
  for (const f of frags) {
    for (const r of f.runs) {
      const n = r.str.length;
      if (r.font) chars.set(r.font, (chars.get(r.font) ?? 0) + n);
      sizes.set(Math.round(r.size), (sizes.get(Math.round(r.size)) ?? 0) + n);
    }
  }
  const most = <K>(m: Map<K, number>) => [...m].sort((a, b) => b[1] - a[1])[0]?.[0];
  const bodyFont = most(chars);
  const bodySize = most(sizes) ?? 0;
  return frags.some((f, i) => {
    const font = most(new Map(f.runs.map((r) => [r.font, r.str.length])));
    if (!font || font === bodyFont || seen.has(font) || f.size < bodySize - 0.5) return false;
    const alone = frags.every((o, j) => j === i || Math.abs(o.y - f.y) > f.size * 0.5);
    const length = f.runs.reduce((n, r) => n + r.str.length, 0);
    return alone && length >= 2 && length <= HEADING_LINE_CHARS;
  });
}

/**
 * The structure of a page for markdown: its tables (ruled ones from the rules the page draws,
 * unruled ones from how its text lines up) and the runs left for the text, each run told its
 * font's look (bold, fixed pitch) for headings. The page's drawing is read when its text may
 * hold a table or uses a font not seen before (pdf.js gives text without font names).
 */
export async function pageStructure(page: PdfPage, asDrawn: PageRuns, pdfjs: Pick<PdfJs, 'OPS' | 'Util' | 'AnnotationMode'>, fonts: DocumentFonts): Promise<{ runs: PageRuns; tables: PageTable[] }> {
  const { runs, turnRules } = turnedUpright(asDrawn);
  const frags = fragments(runs.upright, { wideSpaces: true });
  const tableLike = mayHoldTable(frags);
  const unknownFont = mayBeHeadingInNewFont(frags, fonts.seen);
  const rightToLeft = runs.upright.some((r) => RTL_LETTER.test(r.str));
  let tables: PageTable[] = [];
  let upright = runs.upright;
  if (tableLike || unknownFont || rightToLeft) {
    const drawing = await readDrawing(page, pdfjs);
    for (const [name, look] of drawing.fonts) fonts.looks.set(name, look);
    for (const [drawn, right] of drawing.rtlWords) fonts.rtlWords.set(drawn, right);
    for (const r of [...runs.upright, ...runs.rotated]) if (r.font) fonts.seen.add(r.font);
    // Rules are looked at on every page whose drawing is read: frames (a figure's labels) hold no headings.
    const ruled = ruledTables(turnRules(drawing.rules), tableLike ? upright : []);
    tables = ruled.tables;
    if (tableLike) upright = ruled.rest;
    for (const f of ruled.frames) for (const r of upright) if (r.x >= f.x - 1 && r.x + r.width <= f.right + 1 && r.y >= f.y && r.y <= f.bottom) r.framed = true;
  }
  for (const r of [...runs.upright, ...upright, ...runs.rotated]) if (r.font) r.look = fonts.looks.get(r.font);
  if (rightToLeft) markRightToLeft(runs.upright, fonts.rtlWords);
  if (tableLike) {
    const unruled = unruledTables(upright);
    tables = [...tables, ...unruled.tables];
    upright = unruled.rest;
  }
  return { runs: { ...runs, upright }, tables };
}
