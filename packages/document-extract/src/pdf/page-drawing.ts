import type { Matrix } from './page-operators.js';
import type { PdfJs, PdfPage } from './open-pdf.js';

/** A straight axis-parallel stroke or thin bar on the page, in viewport space (points, y down). */
export interface Rule {
  /** Horizontal: y is fixed, the rule runs from `from` to `to` along x. Vertical: the other way. */
  horizontal: boolean;
  /** The fixed coordinate (y of a horizontal rule, x of a vertical one). */
  at: number;
  from: number;
  to: number;
}

/** A filled axis-parallel rectangle wider than a rule both ways (cell shading, a coloured box). */
export interface FilledBox {
  x: number;
  y: number;
  right: number;
  bottom: number;
  /** Fill colour as pdf.js gives it ('#rrggbb'), when known. */
  color: string | null;
}

/** What the font of a piece of text looks like, from its name (pdf.js gives text content no weights). */
export interface FontLook {
  bold: boolean;
  monospace: boolean;
}

export interface PageDrawingDetail {
  rules: Rule[];
  boxes: FilledBox[];
  /** Fonts the page uses, by pdf.js's loaded name (the `fontName` of text content items). */
  fonts: Map<string, FontLook>;
  /**
   * Right-to-left words as pdf.js's text gives them, mapped to their right spelling: a glyph
   * standing for two letters (Arabic's lam-alef ligature) comes out reversed when pdf.js turns
   * the drawn order around letter by letter; turned around glyph by glyph it reads right.
   */
  rtlWords: Map<string, string>;
}

/** Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their presentation forms). */
export const RTL_LETTER = /[\u0590-\u07ff\ufb1d-\ufdff\ufe70-\ufeff]/;

/** The words of one drawn string whose glyphs are read wrongly when turned around letter by letter. */
function rtlWordFixes(glyphs: unknown[], into: Map<string, string>): void {
  let word: string[] = [];
  const flush = () => {
    if (word.some((u) => u.length > 1) && word.some((u) => RTL_LETTER.test(u))) {
      const byLetter = [...word.join('')].reverse().join('');
      const byGlyph = [...word].reverse().join('');
      if (byLetter !== byGlyph) into.set(byLetter, byGlyph);
    }
    word = [];
  };
  for (const g of glyphs) {
    const unicode = typeof g === 'object' && g !== null ? (g as { unicode?: unknown }).unicode : undefined;
    if (typeof unicode !== 'string') continue;
    if (unicode.trim() === '' || (g as { isSpace?: boolean }).isSpace) flush();
    else word.push(unicode);
  }
  flush();
}

/** Bars thinner than this (points) are rules; thicker filled rectangles are boxes. */
const RULE_THICKNESS = 2.5;
/** Shorter strokes are glyph parts, check boxes or underlines of a character, not rules. */
const MIN_RULE_LENGTH = 4;
/** Slack (points) for a line that is almost axis-parallel. */
const SKEW = 0.5;
/** Drawing the operator list is refused past this many path segments (a map, a chart of points). */
const MAX_PATH_POINTS = 200_000;

const BOLD_NAME = /bold|black|heavy|semibold|demi|-bd\b|bd$|extrab|ultrab|,b$/i;
const MONO_NAME = /courier|mono|consol|menlo|typewriter|lucidaconsole|\bcode/i;

/**
 * Weight and pitch of a font from its PostScript name ("ABCDEF+Arial-BoldMT", "HelveticaNeue-Bd",
 * "CourierNewPSMT"): pdf.js reports neither with text, and the name is what PDF producers set.
 */
export function fontLook(name: string, flags: { bold?: boolean; black?: boolean; isMonospace?: boolean } = {}): FontLook {
  const bare = name.replace(/^[A-Z]{6}\+/, '');
  return { bold: Boolean(flags.bold || flags.black) || BOLD_NAME.test(bare), monospace: Boolean(flags.isMonospace) || MONO_NAME.test(bare) };
}

const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];

/**
 * The rules, filled boxes and fonts of a page, read from its operator list (which pdf.js builds
 * as it would to render the page: it costs about as much as the page's text, so it is asked for
 * only on pages that may hold a table or use a font not seen yet). Paths are followed through
 * the transformation matrix (q/Q, cm, form XObjects) into the same viewport space as the text.
 * Only painted paths count (a clip is not drawn); curves end a straight run.
 */
export async function readDrawing(page: PdfPage, { OPS, Util, AnnotationMode }: Pick<PdfJs, 'OPS' | 'Util' | 'AnnotationMode'>): Promise<PageDrawingDetail> {
  // Without annotations: pdf.js would otherwise parse every annotation of the page (resolving
  // link destinations) and draw their appearances, and a table's rules are page content. The
  // "any" intent: the page's images are listed but not decoded (patches/pdfjs-dist@5.6.205.patch).
  const { fnArray, argsArray } = await page.getOperatorList({ intent: 'any', annotationMode: AnnotationMode.DISABLE });
  const rules: Rule[] = [];
  const boxes: FilledBox[] = [];
  const fonts = new Map<string, FontLook>();
  const rtlWords = new Map<string, string>();
  const shows = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
  const saved: Array<{ ctm: Matrix; fill: string | null; lineWidth: number }> = [];
  let ctm = page.getViewport({ scale: 1 }).transform as Matrix;
  let fill: string | null = null;
  let lineWidth = 1;
  let points = 0;
  const strokes = new Set<number>([OPS.stroke, OPS.closeStroke, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
  const fills = new Set<number>([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);

  const addLine = (ax: number, ay: number, bx: number, by: number) => {
    const [x1, y1] = apply(ctm, ax, ay);
    const [x2, y2] = apply(ctm, bx, by);
    if (Math.abs(y1 - y2) <= SKEW && Math.abs(x1 - x2) >= MIN_RULE_LENGTH) rules.push({ horizontal: true, at: (y1 + y2) / 2, from: Math.min(x1, x2), to: Math.max(x1, x2) });
    else if (Math.abs(x1 - x2) <= SKEW && Math.abs(y1 - y2) >= MIN_RULE_LENGTH) rules.push({ horizontal: false, at: (x1 + x2) / 2, from: Math.min(y1, y2), to: Math.max(y1, y2) });
  };
  const addRect = (corners: Array<[number, number]>, filled: boolean, stroked: boolean) => {
    const pts = corners.map(([x, y]) => apply(ctm, x, y));
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const [w, h] = [right - left, bottom - top];
    if (filled && h <= RULE_THICKNESS && w >= MIN_RULE_LENGTH) rules.push({ horizontal: true, at: (top + bottom) / 2, from: left, to: right });
    else if (filled && w <= RULE_THICKNESS && h >= MIN_RULE_LENGTH) rules.push({ horizontal: false, at: (left + right) / 2, from: top, to: bottom });
    else {
      if (filled && w > RULE_THICKNESS && h > RULE_THICKNESS) boxes.push({ x: left, y: top, right, bottom, color: fill });
      if (stroked) {
        for (let i = 0; i < 4; i++) {
          const [a, b] = [pts[i], pts[(i + 1) % 4]];
          const [x1, y1] = a;
          const [x2, y2] = b;
          if (Math.abs(y1 - y2) <= SKEW && Math.abs(x1 - x2) >= MIN_RULE_LENGTH) rules.push({ horizontal: true, at: (y1 + y2) / 2, from: Math.min(x1, x2), to: Math.max(x1, x2) });
          else if (Math.abs(x1 - x2) <= SKEW && Math.abs(y1 - y2) >= MIN_RULE_LENGTH) rules.push({ horizontal: false, at: (x1 + x2) / 2, from: Math.min(y1, y2), to: Math.max(y1, y2) });
        }
      }
    }
  };

  /** One painted path (pdf.js's DrawOPS: moveTo 0, lineTo 1, curveTo 2, quadraticCurveTo 3, closePath 4). */
  const paintPath = (data: ArrayLike<number>, filled: boolean, stroked: boolean) => {
    let sub: Array<[number, number]> = [];
    let straight = true;
    const endSubpath = () => {
      // A closed four-sided axis-parallel outline is a rectangle (the `re` operator, or drawn out).
      const closedRect = straight && (sub.length === 4 || (sub.length === 5 && sub[0][0] === sub[4][0] && sub[0][1] === sub[4][1]));
      if (closedRect && isAxisRect(sub.slice(0, 4))) addRect(sub.slice(0, 4), filled, stroked);
      else if (stroked && straight) for (let i = 1; i < sub.length; i++) addLine(sub[i - 1][0], sub[i - 1][1], sub[i][0], sub[i][1]);
      else if (stroked) for (let i = 1; i < sub.length; i++) if (!Number.isNaN(sub[i][0])) addLine(sub[i - 1][0], sub[i - 1][1], sub[i][0], sub[i][1]);
      sub = [];
      straight = true;
    };
    for (let i = 0; i < data.length; ) {
      const op = data[i++];
      if (op === 0) {
        endSubpath();
        sub.push([data[i++], data[i++]]);
      } else if (op === 1) sub.push([data[i++], data[i++]]);
      else if (op === 2 || op === 3) {
        const n = op === 2 ? 6 : 4;
        straight = false;
        const end: [number, number] = [data[i + n - 2], data[i + n - 1]];
        i += n;
        // The curve itself is not a rule; the path goes on from its end.
        sub.push([Number.NaN, Number.NaN], end);
      } else if (op === 4) {
        if (sub.length > 1) sub.push(sub[0]);
        endSubpath();
      } else break;
    }
    endSubpath();
  };

  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[];
    if (fn === OPS.save) saved.push({ ctm, fill, lineWidth });
    else if (fn === OPS.restore) ({ ctm, fill, lineWidth } = saved.pop() ?? { ctm, fill, lineWidth });
    else if (fn === OPS.transform) ctm = Util.transform(ctm, args as Matrix) as Matrix;
    else if (fn === OPS.paintFormXObjectBegin) {
      saved.push({ ctm, fill, lineWidth });
      if (Array.isArray(args[0]) && args[0].length === 6) ctm = Util.transform(ctm, args[0] as Matrix) as Matrix;
    } else if (fn === OPS.paintFormXObjectEnd) ({ ctm, fill, lineWidth } = saved.pop() ?? { ctm, fill, lineWidth });
    else if (fn === OPS.setFillRGBColor) fill = typeof args[0] === 'string' ? args[0] : null;
    else if (fn === OPS.setLineWidth) lineWidth = Number(args[0]);
    else if (fn === OPS.setFont) {
      const name = String(args[0]);
      if (!fonts.has(name)) {
        const font = page.commonObjs.has(name) ? (page.commonObjs.get(name) as { name?: string; bold?: boolean; black?: boolean; isMonospace?: boolean }) : null;
        if (font?.name) fonts.set(name, fontLook(font.name, font));
      }
    } else if (shows.has(fn)) {
      const glyphs = args[fn === OPS.nextLineSetSpacingShowText ? 2 : 0];
      if (Array.isArray(glyphs)) rtlWordFixes(glyphs, rtlWords);
    } else if (fn === OPS.constructPath) {
      const [paint, [data]] = args as [number, [ArrayLike<number> | null]];
      if (!data || paint === OPS.endPath) continue;
      points += data.length;
      if (points > MAX_PATH_POINTS) break;
      paintPath(data, fills.has(paint), strokes.has(paint) && lineWidth <= RULE_THICKNESS * 2);
    }
  }
  return { rules, boxes, fonts, rtlWords };
}

function isAxisRect(p: Array<[number, number]>): boolean {
  const eq = (a: number, b: number) => Math.abs(a - b) <= 0.01;
  return (eq(p[0][1], p[1][1]) && eq(p[1][0], p[2][0]) && eq(p[2][1], p[3][1]) && eq(p[3][0], p[0][0])) || (eq(p[0][0], p[1][0]) && eq(p[1][1], p[2][1]) && eq(p[2][0], p[3][0]) && eq(p[3][1], p[0][1]));
}
