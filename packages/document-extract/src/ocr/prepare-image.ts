import sharp, { type Sharp, type SharpOptions } from 'sharp';
import type { GrayRaster } from './text-geometry.js';

/** Larger images are refused rather than decoded (pixel bombs); Tika uses the same 100 MP cap. */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Tesseract reads best when lines are about this far apart (12 pt text at 300 DPI). */
const TARGET_LINE_PITCH = 45;
/** Without measurable lines, narrow images are enlarged towards a page scanned at ~200-300 DPI. */
const TARGET_MIN_WIDTH = 1800;
const MAX_UPSCALE = 4;
/** Stretching contrast helps faded scans but turns JPEG noise on clean white pages into specks. */
const LOW_CONTRAST_RANGE = 140;
/** Tesseract misses text that touches the edge of the image. */
const BORDER = 12;

/** A sharp pipeline for untrusted input: pixel-limited, failing on corrupt data. */
export function openImage(input: Buffer, options: SharpOptions = {}): Sharp {
  return sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', ...options });
}

/** EXIF orientation applied, transparency put on white, reduced to one grey channel. */
export function decodeGray(image: Sharp): Promise<GrayRaster> {
  // A bare rotate() must come first: sharp keeps only one rotation per pipeline besides it.
  return toGrayRaster(image.rotate());
}

/** The pipeline's output with transparency put on white, as one grey channel. */
export async function toGrayRaster(image: Sharp): Promise<GrayRaster> {
  const { data, info } = await image.flatten({ background: '#ffffff' }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected one grey channel, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

function rasterInput(raster: GrayRaster): Sharp {
  return sharp(Buffer.from(raster.data.buffer, raster.data.byteOffset, raster.data.byteLength), {
    raw: { width: raster.width, height: raster.height, channels: 1 },
    limitInputPixels: MAX_INPUT_PIXELS,
  });
}

/** The raster shrunk to fit `maxSide` (never enlarged), for layout analysis. */
export async function shrink(raster: GrayRaster, maxSide: number): Promise<GrayRaster> {
  if (Math.max(raster.width, raster.height) <= maxSide) return raster;
  const { data, info } = await rasterInput(raster)
    .resize({ width: maxSide, height: maxSide, fit: 'inside', kernel: 'linear' })
    // Without this libvips hands back three (equal) sRGB channels.
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected one grey channel, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** Enlargement that brings text towards ~300 DPI: from the measured line pitch, else from the width. */
export function upscaleFactor(width: number, linePitch: number | null): number {
  const factor = linePitch ? TARGET_LINE_PITCH / linePitch : TARGET_MIN_WIDTH / width;
  return Math.min(MAX_UPSCALE, Math.max(1, factor));
}

function lowContrast(raster: GrayRaster): boolean {
  // 1st and 99th percentiles, so that a few specks do not count as contrast.
  const hist = new Uint32Array(256);
  for (let i = 0; i < raster.data.length; i++) hist[raster.data[i]]++;
  const cut = raster.data.length * 0.01;
  let low = 0;
  for (let acc = 0; low < 255 && (acc += hist[low]) < cut; ) low++;
  let high = 255;
  for (let acc = 0; high > 0 && (acc += hist[high]) < cut; ) high--;
  return high - low < LOW_CONTRAST_RANGE;
}

/**
 * The PNG tesseract gets: turned by `rotateDegrees` (clockwise; any angle, the corners filled
 * white), resized by `scale`, contrast stretched when the image is faded, and a white border.
 */
export async function renderForOcr(raster: GrayRaster, rotateDegrees: number, scale: number): Promise<Buffer> {
  let pipeline = rasterInput(raster);
  const angle = ((rotateDegrees % 360) + 360) % 360;
  if (angle !== 0) pipeline = pipeline.rotate(angle, { background: '#ffffff' });
  // Arbitrary-angle rotation changes the size, so the resize needs the rotated image's pixels.
  if (Math.abs(scale - 1) > 0.01) {
    const rotated = angle === 0 ? raster : await toGrayRaster(pipeline);
    const width = Math.round(rotated.width * scale);
    pipeline = rasterInput(rotated).resize({ width, kernel: 'lanczos3' });
  }
  if (lowContrast(raster)) pipeline = pipeline.normalise();
  return pipeline
    .extend({ top: BORDER, bottom: BORDER, left: BORDER, right: BORDER, background: '#ffffff' })
    .toColourspace('b-w')
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * Preprocessing for OCR on its own: EXIF orientation, grey, faded contrast stretched, small
 * images enlarged towards ~300 DPI, white border. `recognizeUpright` adds skew and orientation.
 */
export async function prepareForOcr(input: Buffer): Promise<Buffer> {
  const raster = await decodeGray(openImage(input));
  return renderForOcr(raster, 0, upscaleFactor(raster.width, null));
}
