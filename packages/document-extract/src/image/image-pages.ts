import type { Sharp } from 'sharp';
import { DocumentError } from '../errors.js';
import { MAX_INPUT_PIXELS, openImage } from '../ocr/prepare-image.js';
import { decodeHeicGray } from './heic-thread.js';

export type ImageKind = 'jpeg' | 'png' | 'tiff' | 'heic';

export interface ImagePage {
  /** A fresh pipeline over the page's pixels (a sharp pipeline runs only once). */
  open: () => Sharp;
  /** Resolution from the file when it is believable, for tesseract's size heuristics. */
  dpi?: number;
}

const tooLarge = (width: number, height: number) =>
  new DocumentError('400-001', 'Image too large', [`the image is ${width}x${height} pixels; at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels are read`]);

/** Files often carry 72 or 96 DPI whatever the scan was; only a page-sized result is believed. */
function believableDpi(density: number | undefined, width: number, height: number): number | undefined {
  if (!density || density < 100 || density > 1200) return undefined;
  const inches = Math.max(width, height) / density;
  return inches >= 2 && inches <= 20 ? density : undefined;
}

/**
 * The pages of an image file. Every page of a multi-page TIFF is read on its own (`page: i`),
 * because pages may differ in size. HEIC goes through libheif-js (sharp's prebuilt libvips has
 * no HEVC decoder), in a thread of its own that hands back grey pixels. Sizes are checked before
 * anything is decoded, so a pixel bomb costs nothing.
 */
export async function imagePages(bytes: Buffer, kind: ImageKind): Promise<ImagePage[]> {
  // The header is read without the pixel limit, so that the refusal can say how large the image is.
  const meta = await openImage(bytes, { limitInputPixels: false }).metadata();
  if (kind === 'heic') {
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    if (width * height > MAX_INPUT_PIXELS) throw tooLarge(width, height);
    const decoded = await decodeHeicGray(bytes, MAX_INPUT_PIXELS);
    if (!decoded.gray) throw tooLarge(decoded.width, decoded.height);
    const gray = Buffer.from(decoded.gray.buffer, decoded.gray.byteOffset, decoded.gray.byteLength);
    return [{ open: () => openImage(gray, { raw: { width: decoded.width, height: decoded.height, channels: 1 } }) }];
  }
  const count = kind === 'tiff' ? Math.max(1, meta.pages ?? 1) : 1;
  const pages: ImagePage[] = [];
  for (let page = 0; page < count; page++) {
    const pageMeta = count > 1 ? await openImage(bytes, { page, limitInputPixels: false }).metadata() : meta;
    const width = pageMeta.width ?? 0;
    const height = pageMeta.height ?? 0;
    if (width * height > MAX_INPUT_PIXELS) throw tooLarge(width, height);
    pages.push({ open: () => openImage(bytes, count > 1 ? { page } : {}), dpi: believableDpi(pageMeta.density, width, height) });
  }
  return pages;
}
