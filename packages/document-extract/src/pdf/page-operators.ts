import type { PdfJs, PdfPage } from './open-pdf.js';

/** Render modes that paint nothing: 3 (invisible) and 7 (clip only). */
const INVISIBLE_MODES = new Set([3, 7]);

/** An affine matrix [a, b, c, d, e, f], as pdf.js writes them. */
export type Matrix = [number, number, number, number, number, number];

/**
 * The one image XObject a page paints, and where: the matrix maps its unit square to the page as
 * viewed at scale 1 (points, y down, the page's rotation applied). Its pixels are not at hand:
 * the operator list that found it was built without image data (see inspectDrawing).
 */
export interface PaintedImage {
  width: number;
  height: number;
  matrix: Matrix;
}

export interface PageDrawing {
  /** Images painted (scans, photos, inline images). */
  images: number;
  /** Text-showing operations, by whether they paint. */
  visibleText: number;
  invisibleText: number;
  /**
   * The page's only painting, when it paints nothing but one image XObject (with text drawn
   * invisibly at most): a scan, which can be read without rendering the page.
   */
  soleImage: PaintedImage | null;
}

type Ops = PdfJs['OPS'];

/** Operations that put something other than an image or text on the page. */
const otherPaints = (OPS: Ops) =>
  new Set<number>([OPS.shadingFill, OPS.paintSolidColorImageMask, OPS.beginAnnotation, OPS.beginGroup]);

/**
 * Counts what a page draws: images, and text by visibility (OCR layers over scans are invisible
 * text), and finds a page that is one image. Building the operator list costs about as much as
 * rendering, so it is only asked for pages whose text layer is missing or doubtful. With the
 * "any" intent, its images are listed but not decoded (patches/pdfjs-dist@5.6.205.patch): most
 * such pages are figures or blank, and decoding their images was a tenth of a text PDF's time.
 * That intent also lists annotations a viewer hides; any drawn annotation counts as painting.
 */
export async function inspectDrawing(page: PdfPage, { OPS, Util }: Pick<PdfJs, 'OPS' | 'Util'>): Promise<PageDrawing> {
  const { fnArray, argsArray } = await page.getOperatorList({ intent: 'any' });
  const shows = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
  const paints = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintImageXObjectRepeat, OPS.paintInlineImageXObjectGroup, OPS.paintImageMaskXObjectGroup, OPS.paintImageMaskXObjectRepeat, OPS.paintSolidColorImageMask]);
  const others = otherPaints(OPS);
  // The render mode and the transformation are graphics state: q/Q save and restore them.
  const saved: Array<{ mode: number; ctm: Matrix }> = [];
  let mode = 0;
  let ctm = page.getViewport({ scale: 1 }).transform as Matrix;
  const drawing: PageDrawing = { images: 0, visibleText: 0, invisibleText: 0, soleImage: null };
  let sole: PaintedImage | null = null;
  let otherPainting = false;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[];
    if (fn === OPS.setTextRenderingMode) mode = Number(args[0]);
    else if (fn === OPS.save) saved.push({ mode, ctm });
    else if (fn === OPS.restore) ({ mode, ctm } = saved.pop() ?? { mode: 0, ctm });
    else if (fn === OPS.transform) ctm = Util.transform(ctm, args as Matrix) as Matrix;
    // A form XObject (scanners wrap scans in them) draws in its own matrix, inside q/Q.
    else if (fn === OPS.paintFormXObjectBegin) {
      saved.push({ mode, ctm });
      if (Array.isArray(args[0]) && args[0].length === 6) ctm = Util.transform(ctm, args[0] as Matrix) as Matrix;
    } else if (fn === OPS.paintFormXObjectEnd) ({ mode, ctm } = saved.pop() ?? { mode: 0, ctm });
    else if (shows.has(fn)) {
      const visible = !INVISIBLE_MODES.has(mode);
      drawing[visible ? 'visibleText' : 'invisibleText']++;
      otherPainting ||= visible;
    } else if (paints.has(fn)) {
      drawing.images++;
      if (fn === OPS.paintImageXObject && drawing.images === 1) sole = { width: Number(args[1]), height: Number(args[2]), matrix: ctm };
    }
    // A path painted (not only a clip) is a line, box or shape beside the image.
    else if (fn === OPS.constructPath) otherPainting ||= args[0] !== OPS.endPath;
    else otherPainting ||= others.has(fn);
  }
  drawing.soleImage = drawing.images === 1 && !otherPainting ? sole : null;
  return drawing;
}
