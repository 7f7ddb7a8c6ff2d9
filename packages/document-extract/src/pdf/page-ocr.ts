import { createCanvas } from '@napi-rs/canvas';
import type { OcrEngine } from '../types.js';
import { decodeGray, openImage } from '../ocr/prepare-image.js';
import { MAX_OCR_PIXELS, recognizeUpright, type UprightText } from '../ocr/recognize-upright.js';
import type { GrayRaster } from '../ocr/text-geometry.js';
import type { PdfPage } from './open-pdf.js';

/**
 * Scans are rendered at 300 DPI, the resolution tesseract is tuned for, unless the page is larger
 * than A4 or Letter (posters, drawings): then at fewer DPI, to no more pixels than OCR reads.
 */
const OCR_DPI = 300;

export interface RenderedPage {
  raster: GrayRaster;
  dpi: number;
}

/**
 * Renders a page with @napi-rs/canvas (white background, annotations included) and returns it as
 * one grey channel, with the resolution used. The canvas holds 4 bytes a pixel (35 MB for A4 at
 * 300 DPI): its pixels are read in place and released as soon as the grey copy exists, not when
 * the garbage collector gets round to the canvas (a thread waiting on OCR hardly ever collects).
 */
export async function renderPage(page: PdfPage): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  let scale = OCR_DPI / 72;
  if (base.width * base.height * scale * scale > MAX_OCR_PIXELS) scale = Math.sqrt(MAX_OCR_PIXELS / (base.width * base.height));
  const viewport = page.getViewport({ scale });
  const canvas = createCanvas(Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height)));
  try {
    // pdf.js draws through the standard canvas API, which @napi-rs/canvas implements.
    await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport, background: '#ffffff' }).promise;
    // data() is a view of the canvas's native memory: it must be read before the canvas is shrunk below.
    const raster = await decodeGray(openImage(canvas.data(), { raw: { width: canvas.width, height: canvas.height, channels: 4 } }));
    return { raster, dpi: Math.round(scale * 72) };
  } finally {
    // Resizing frees the native pixels at once.
    canvas.width = 0;
    canvas.height = 0;
  }
}

/**
 * OCR of a rendered page, turned upright first (scans are often sideways or upside down), unless
 * the page is known to be upright (typeset text without a character map).
 */
export function recognizeRendered({ raster, dpi }: RenderedPage, ocr: OcrEngine, { upright = false } = {}): Promise<UprightText> {
  return recognizeUpright(raster, ocr, dpi, { assumeUpright: upright });
}
