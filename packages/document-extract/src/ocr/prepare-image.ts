import sharp, { type Sharp, type SharpOptions } from 'sharp';
import { greyHistogram, otsuThreshold, type GrayRaster } from './text-geometry.js';

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
/**
 * Pages with at most this share of mid-tones go to tesseract as one bit a pixel. The corpus's scans
 * have none, its pages rendered for OCR 0-16 % (anti-aliased edges, tinted areas) but one of 33 %
 * (which stays grey), its photos of pages 5-8 %, a phone photo of a receipt 71 %.
 */
const MAX_TWO_TONE_MIDTONES = 0.2;
/** Grey levels that are neither ink nor paper. */
const MIDTONES = { from: 48, to: 208 };

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

function lowContrast(hist: Uint32Array, pixels: number): boolean {
  // 1st and 99th percentiles, so that a few specks do not count as contrast.
  const cut = pixels * 0.01;
  let low = 0;
  for (let acc = 0; low < 255 && (acc += hist[low]) < cut; ) low++;
  let high = 255;
  for (let acc = 0; high > 0 && (acc += hist[high]) < cut; ) high--;
  return high - low < LOW_CONTRAST_RANGE;
}

function midtoneShare(hist: Uint32Array, pixels: number): number {
  let midtones = 0;
  for (let level = MIDTONES.from; level <= MIDTONES.to; level++) midtones += hist[level];
  return midtones / pixels;
}

/**
 * A binary PBM (P4) of the raster inside a white border of `BORDER` pixels: rows of one bit a
 * pixel, 1 for ink (at or below `threshold`), each row padded to a byte.
 */
function toPbm(raster: GrayRaster, threshold: number): Buffer {
  const { data, width, height } = raster;
  const [fileWidth, fileHeight] = [width + 2 * BORDER, height + 2 * BORDER];
  const header = Buffer.from(`P4\n${fileWidth} ${fileHeight}\n`, 'latin1');
  const rowBytes = (fileWidth + 7) >> 3;
  // Zeroed (white), and not from Buffer's shared pool: the file must have its memory to itself to
  // move to the OCR worker.
  const pbm = Buffer.alloc(header.length + rowBytes * fileHeight);
  header.copy(pbm);
  for (let y = 0; y < height; y++) {
    const [row, out] = [y * width, header.length + (y + BORDER) * rowBytes];
    for (let x = 0; x < width; x++) {
      if (data[row + x] <= threshold) pbm[out + ((x + BORDER) >> 3)] |= 0x80 >> ((x + BORDER) & 7);
    }
  }
  return pbm;
}

/**
 * The image tesseract gets: turned by `rotateDegrees` (clockwise; any angle, the corners filled
 * white), resized by `scale`, contrast stretched when the image is faded, and a white border.
 * A page with few mid-tones (a scan, a rendered PDF page) is thresholded by Otsu's method, as
 * tesseract would threshold it itself for its layout analysis, and sent as a PBM of one bit a
 * pixel: tesseract's WebAssembly heap, which never shrinks, then does not hold the grey page
 * beside its binary copy (24 MB after an A4 page instead of 43 MB), and the corpus's scans and
 * rendered pages read the same (word F1 within 0.002). Photos stay grey: tesseract's
 * recogniser reads their greys better than any one threshold (the corpus's receipt photo: word
 * F1 0.667 against 0.650), as PGM (toPgm).
 */
export async function renderForOcr(raster: GrayRaster, rotateDegrees: number, scale: number): Promise<Buffer> {
  const hist = greyHistogram(raster.data);
  const pixels = raster.data.length;
  const twoTone = midtoneShare(hist, pixels) <= MAX_TWO_TONE_MIDTONES;
  const angle = ((rotateDegrees % 360) + 360) % 360;
  const resize = Math.abs(scale - 1) > 0.01;
  const stretch = lowContrast(hist, pixels);
  // A page rendered at 300 DPI, or a straight scan: thresholded as it is, without another copy.
  if (twoTone && angle === 0 && !resize && !stretch) return toPbm(raster, otsuThreshold(hist, pixels));

  let pipeline = rasterInput(raster);
  if (angle !== 0) pipeline = pipeline.rotate(angle, { background: '#ffffff' });
  // Arbitrary-angle rotation changes the size, so the resize needs the rotated image's pixels.
  if (resize) {
    const rotated = angle === 0 ? raster : await toGrayRaster(pipeline);
    const width = Math.round(rotated.width * scale);
    pipeline = rasterInput(rotated).resize({ width, kernel: 'lanczos3' });
  }
  if (stretch) pipeline = pipeline.normalise();
  if (twoTone) {
    const page = await toGrayRaster(pipeline);
    return toPbm(page, otsuThreshold(greyHistogram(page.data), page.data.length));
  }
  return toPgm(await toGrayRaster(pipeline.extend({ top: BORDER, bottom: BORDER, left: BORDER, right: BORDER, background: '#ffffff' })));
}

/**
 * A binary PGM (P5) of the raster: its grey bytes behind a short header. Tesseract reads it
 * without decoding, where a PNG is inflated inside its WebAssembly heap, which never shrinks: a grey
 * A4 page at 300 DPI took the process 114-125 MB above an idle worker as PNG against 77-84 MB as
 * PGM, and was read 20-25 % faster (same text).
 */
function toPgm(raster: GrayRaster): Buffer {
  const header = Buffer.from(`P5\n${raster.width} ${raster.height}\n255\n`, 'latin1');
  // Not from Buffer's shared pool (nor sharp's memory): the file must own its memory to move to the OCR worker.
  const pgm = Buffer.alloc(header.length + raster.data.length);
  header.copy(pgm);
  pgm.set(raster.data, header.length);
  return pgm;
}

/**
 * Preprocessing for OCR on its own: EXIF orientation, grey, faded contrast stretched, small
 * images enlarged towards ~300 DPI, white border, two-tone pages thresholded (PBM; else PGM).
 * `recognizeUpright` adds skew and orientation.
 */
export async function prepareForOcr(input: Buffer): Promise<Buffer> {
  const raster = await decodeGray(openImage(input));
  return renderForOcr(raster, 0, upscaleFactor(raster.width, null));
}
