import { createCanvas } from '@napi-rs/canvas';
import type { OcrEngine } from '../types.js';
import { decodeGray, openImage, toGrayRaster } from '../ocr/prepare-image.js';
import { MAX_OCR_PIXELS, recognizeUpright, type UprightText } from '../ocr/recognize-upright.js';
import type { GrayRaster } from '../ocr/text-geometry.js';
import type { PdfJs, PdfPage } from './open-pdf.js';
import type { PaintedImage } from './page-operators.js';

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
 * A page is drawn in horizontal strips of about this many pixels (an 8 MB canvas): drawn whole,
 * an A4 page at 300 DPI is a 35 MB canvas beside its 8.7 MB of greys. Five strips took a
 * TAMReview page 316 ms instead of 212 ms (three: 294 ms).
 */
const STRIP_PIXELS = 2_000_000;

/**
 * Renders a page with @napi-rs/canvas (white background, annotations included) and returns it as
 * one grey channel, with the resolution used. pdf.js draws the page once a strip, shifted up by
 * the rows above it; each strip's greys are copied out before the next is drawn. The canvas's
 * native pixels are released when done, not when the garbage collector gets round to the canvas
 * (a thread waiting on OCR hardly ever collects).
 */
export async function renderPage(page: PdfPage, { stripPixels = STRIP_PIXELS } = {}): Promise<RenderedPage> {
  const base = page.getViewport({ scale: 1 });
  let scale = OCR_DPI / 72;
  if (base.width * base.height * scale * scale > MAX_OCR_PIXELS) scale = Math.sqrt(MAX_OCR_PIXELS / (base.width * base.height));
  const viewport = page.getViewport({ scale });
  const [width, height] = [Math.max(1, Math.ceil(viewport.width)), Math.max(1, Math.ceil(viewport.height))];
  const stripHeight = Math.min(height, Math.max(1, Math.ceil(stripPixels / width)));
  const canvas = createCanvas(width, stripHeight);
  const grey = new Uint8Array(width * height);
  try {
    for (let top = 0; top < height; top += stripHeight) {
      // pdf.js draws through the standard canvas API, which @napi-rs/canvas implements.
      await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport, transform: [1, 0, 0, 1, 0, -top], background: '#ffffff' }).promise;
      // data() is a view of the canvas's native memory: it is read before the canvas is drawn again or shrunk.
      const strip = await decodeGray(openImage(canvas.data(), { raw: { width, height: stripHeight, channels: 4 } }));
      grey.set(strip.data.subarray(0, Math.min(stripHeight, height - top) * width), top * width);
    }
    return { raster: { data: grey, width, height }, dpi: Math.round(scale * 72) };
  } finally {
    // Resizing frees the native pixels at once.
    canvas.width = 0;
    canvas.height = 0;
  }
}

/** A scan read as it is stands for its page when it covers at least this share of it. */
const MIN_SCAN_COVER = 0.75;
/** ... and sticks out of the page by no more than this share of its size (rendering clips it). */
const MAX_SCAN_OVERHANG = 0.02;
/** A placement turned by less than this (tangent) is taken as square to the page. */
const SQUARE_TOLERANCE = 0.01;

/** pdf.js's kinds of decoded image (ImageKind): one bit, RGB and RGBA a pixel. */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

interface DecodedImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray | null;
}

/** One bit a pixel, rows padded to bytes, 1 = white (pdf.js has applied the image's Decode), to 0 and 255. */
function unpackBits({ width, height, data }: DecodedImage & { data: Uint8Array | Uint8ClampedArray }): Buffer {
  const grey = Buffer.allocUnsafe(width * height);
  const rowBytes = (width + 7) >> 3;
  for (let y = 0, out = 0; y < height; y++) {
    const row = y * rowBytes;
    for (let x = 0; x < width; x++) grey[out++] = (data[row + (x >> 3)] >> (7 - (x & 7))) & 1 ? 255 : 0;
  }
  return grey;
}

/**
 * A scanned page read from its image as pdf.js decoded it, instead of rendering the page: the
 * render holds the page's canvas and, while drawing, an RGBA copy of the image (two 34 MB
 * buffers for a letter-size scan at 300 DPI, against the image's 1 MB at one bit a pixel), and
 * resamples it. The image is turned and mirrored as the page shows it and kept at its own
 * resolution, or 300 DPI if coarser, within what OCR reads at most. Null when the image does not stand for the page
 * (it covers too little of it, sticks out, or is placed askew) or pdf.js could not decode it: the
 * page is rendered then.
 */
export async function readScanImage(page: PdfPage, image: PaintedImage, { OPS }: Pick<PdfJs, 'OPS'>): Promise<RenderedPage | null> {
  const viewport = page.getViewport({ scale: 1 });
  // The image's unit square in viewport space (points, y down): its columns run along (a, b),
  // its rows, first row at the top of the unit square, along (-c, -d).
  const [a, b, c, d, e, f] = image.matrix;
  const xs = [e, a + e, c + e, a + c + e];
  const ys = [f, b + f, d + f, b + d + f];
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [pageWidth, pageHeight] = [viewport.width, viewport.height];
  const overhang = Math.max(-left / pageWidth, (right - pageWidth) / pageWidth, -top / pageHeight, (bottom - pageHeight) / pageHeight);
  const covered = (Math.max(0, Math.min(right, pageWidth) - Math.max(left, 0)) * Math.max(0, Math.min(bottom, pageHeight) - Math.max(top, 0))) / (pageWidth * pageHeight);
  if (overhang > MAX_SCAN_OVERHANG || covered < MIN_SCAN_COVER) return null;
  const straight = Math.abs(b) <= SQUARE_TOLERANCE * Math.abs(a) && Math.abs(c) <= SQUARE_TOLERANCE * Math.abs(d);
  const sideways = Math.abs(a) <= SQUARE_TOLERANCE * Math.abs(b) && Math.abs(d) <= SQUARE_TOLERANCE * Math.abs(c);
  if (!straight && !sideways) return null;

  // The image is decoded for an operator list built for display, where it is the page's image of that size.
  const { fnArray, argsArray } = await page.getOperatorList();
  const at = fnArray.findIndex((fn, i) => fn === OPS.paintImageXObject && Number(argsArray[i][1]) === image.width && Number(argsArray[i][2]) === image.height);
  if (at < 0) return null;
  const objId = String(argsArray[at][0]);
  // Global (shared by pages) objects are named g_..., as pdf.js's canvas looks them up.
  const objects = objId.startsWith('g_') ? page.commonObjs : page.objs;
  const decoded = await new Promise<DecodedImage | null>((resolve) => objects.get(objId, resolve));
  if (!decoded?.data || ![GRAYSCALE_1BPP, RGB_24BPP, RGBA_32BPP].includes(decoded.kind)) return null;
  const { width, height, kind } = decoded;
  const channels = kind === GRAYSCALE_1BPP ? 1 : kind === RGB_24BPP ? 3 : 4;
  const pixels = kind === GRAYSCALE_1BPP ? unpackBits({ ...decoded, data: decoded.data }) : Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
  let pipeline = openImage(pixels, { raw: { width, height, channels } });
  // sharp mirrors before it turns. Sideways: a quarter turn clockwise takes columns down the page
  // and rows leftwards; mirroring first gives the other three sideways placements.
  if (straight) {
    if (a < 0) pipeline = pipeline.flop();
    if (d > 0) pipeline = pipeline.flip();
  } else {
    if (b < 0) pipeline = pipeline.flop();
    if (c < 0) pipeline = pipeline.flip();
    pipeline = pipeline.rotate(90);
  }
  // The image's pixels per point across the page, in dots per inch. A coarser scan is enlarged to
  // what a rendering would give (tesseract reads 300 DPI best); a larger one reduced to what it reads.
  const dpi = 72 * Math.sqrt((width * height) / ((right - left) * (bottom - top)));
  const scale = Math.min(Math.max(1, OCR_DPI / dpi), Math.sqrt(MAX_OCR_PIXELS / (width * height)));
  if (Math.abs(scale - 1) > 0.01) pipeline = pipeline.resize({ width: Math.max(1, Math.round((straight ? width : height) * scale)), kernel: 'lanczos3' });
  // Transparency (a soft mask) shows the page's white background, as rendered.
  return { raster: await toGrayRaster(pipeline), dpi: Math.round(dpi * scale) };
}

/**
 * OCR of a rendered page, turned upright first (scans are often sideways or upside down), unless
 * the page is known to be upright (typeset text without a character map).
 */
export function recognizeRendered({ raster, dpi }: RenderedPage, ocr: OcrEngine, { upright = false } = {}): Promise<UprightText> {
  return recognizeUpright(raster, ocr, dpi, { assumeUpright: upright });
}
