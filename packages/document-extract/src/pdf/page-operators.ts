import type { PdfJs, PdfPage } from './open-pdf.js';

/** Render modes that paint nothing: 3 (invisible) and 7 (clip only). */
const INVISIBLE_MODES = new Set([3, 7]);

export interface PageDrawing {
  /** Images painted (scans, photos, inline images). */
  images: number;
  /** Text-showing operations, by whether they paint. */
  visibleText: number;
  invisibleText: number;
}

/**
 * Counts what a page draws: images, and text by visibility (OCR layers over scans are invisible
 * text). Building the operator list costs about as much as rendering, so it is only asked for
 * pages whose text layer is missing or doubtful.
 */
export async function inspectDrawing(page: PdfPage, OPS: PdfJs['OPS']): Promise<PageDrawing> {
  const { fnArray, argsArray } = await page.getOperatorList();
  const shows = new Set<number>([OPS.showText, OPS.showSpacedText, OPS.nextLineShowText, OPS.nextLineSetSpacingShowText]);
  const paints = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintImageXObjectRepeat, OPS.paintInlineImageXObjectGroup, OPS.paintImageMaskXObjectGroup, OPS.paintImageMaskXObjectRepeat, OPS.paintSolidColorImageMask]);
  // The render mode is graphics state: q/Q save and restore it.
  const saved: number[] = [];
  let mode = 0;
  const drawing: PageDrawing = { images: 0, visibleText: 0, invisibleText: 0 };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    if (fn === OPS.setTextRenderingMode) mode = Number((argsArray[i] as unknown[])[0]);
    else if (fn === OPS.save) saved.push(mode);
    else if (fn === OPS.restore) mode = saved.pop() ?? 0;
    else if (shows.has(fn)) drawing[INVISIBLE_MODES.has(mode) ? 'invisibleText' : 'visibleText']++;
    else if (paints.has(fn)) drawing.images++;
  }
  return drawing;
}
