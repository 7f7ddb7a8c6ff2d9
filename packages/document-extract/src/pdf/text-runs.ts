import type { PdfJs } from './open-pdf.js';
import type { FontLook } from './page-drawing.js';

/** A piece of text placed on the page, in viewport space (points, y growing downwards). */
export interface TextRun {
  str: string;
  /** Left end and baseline. */
  x: number;
  y: number;
  width: number;
  size: number;
  /** Structure role from a tagged PDF (H1, P, LI, ...), when known. */
  role?: string;
  /** pdf.js's name of the run's font (its loaded name, the same across the document's pages). */
  font?: string;
  /** What the font looks like, once the page's fonts have been read (markdown only). */
  look?: FontLook;
  /** Inside a frame drawn around a figure or a boxed note (markdown): never a heading. */
  framed?: boolean;
  /** Right-to-left text (Arabic, Hebrew), marked for markdown, whose lines are then read from the right. */
  rtl?: boolean;
  /** Rotated runs: the direction the text runs in (a unit vector on the page, y down). */
  dir?: [number, number];
}

export interface PageRuns {
  /** Horizontal runs, in content-stream order. */
  upright: TextRun[];
  /** Rotated runs (axis labels, sideways notes), in content-stream order. */
  rotated: TextRun[];
  /** Values of filled form fields and text boxes, placed where they show. */
  fields: TextRun[];
}

interface RawItem {
  str?: string;
  transform?: number[];
  width?: number;
  type?: string;
  id?: string;
  fontName?: string;
}

/** Largest slope (sine of the angle) still treated as horizontal text. */
const MAX_SLOPE = 0.09;

/**
 * Runs from pdf.js text content, mapped through the page's viewport so that rotated pages read
 * upright. Marked-content items, present for tagged PDFs, give each run its structure role.
 */
export function textRuns(
  util: PdfJs['Util'],
  viewportTransform: number[],
  items: RawItem[],
  roleOf: (markedContentId: string) => string | undefined,
): PageRuns {
  const upright: TextRun[] = [];
  const rotated: TextRun[] = [];
  const roles: Array<string | undefined> = [];
  for (const item of items) {
    if (item.type === 'beginMarkedContentProps' || item.type === 'beginMarkedContent') {
      roles.push(item.id ? roleOf(item.id) : roles[roles.length - 1]);
      continue;
    }
    if (item.type === 'endMarkedContent') {
      roles.pop();
      continue;
    }
    if (!item.str || !item.transform) continue;
    const [a, b, c, d, e, f] = util.transform(viewportTransform, item.transform) as number[];
    const size = Math.hypot(c, d) || Math.hypot(a, b);
    if (!(size > 0)) continue;
    const run: TextRun = { str: item.str, x: e, y: f, width: item.width ?? 0, size, role: roles.findLast((r) => r !== undefined), font: item.fontName };
    const scale = Math.hypot(a, b);
    // Text is upright when its x axis points right on the page (mirrored or turned text is not).
    if (scale > 0 && Math.abs(b / scale) <= MAX_SLOPE && a > 0) upright.push(run);
    else rotated.push(scale > 0 ? { ...run, dir: [a / scale, b / scale] } : run);
  }
  return { upright, rotated, fields: [] };
}
