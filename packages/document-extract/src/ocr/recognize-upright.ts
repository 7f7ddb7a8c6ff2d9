import type { OcrEngine } from '../types.js';
import { renderForOcr, shrink, upscaleFactor } from './prepare-image.js';
import { measureTextGeometry, type GrayRaster } from './text-geometry.js';

export interface UprightText {
  text: string;
  confidence: number;
  /** Clockwise turn applied before the text was read (orientation plus deskew), in degrees. */
  rotation: number;
  /** Every reading made, for the operator notes. */
  attempts: Array<{ rotation: number; confidence: number }>;
}

/** Layout analysis runs on a copy no larger than this. */
const ANALYSIS_SIDE = 1200;
/** Below this projection contrast (best direction against the crossing one) lines are a guess. */
const CLEAR_LINES = 1.4;
/** Mean ascender-descender evidence per line below which the way up is unknown. */
const UNSURE_VOTES = 0.1;
const MIN_VOTING_LINES = 6;
/** Skew below this is left to tesseract; rotating costs time and blurs a little. */
const MIN_DESKEW = 0.4;
/**
 * Mean word confidence below this suggests the page is upside down, so it is read the other way
 * too. Upside-down pages measured 33-42; a poor but upright phone photo of a receipt 58.
 */
const LOW_CONFIDENCE = 50;
const DEFAULT_DPI = 300;
/**
 * Tesseract gets at most this many pixels: every A4 or Letter page at 300 DPI (8.7 and 8.4 MP)
 * whole, even deskewed by a few degrees (the white corners count), larger images reduced. A
 * worker's WebAssembly heap grows to the largest image it reads and never shrinks: capped at 12 MP,
 * the corpus's 12 MP photo grew one by ~120 MB, against 57-72 MB for an A4 page.
 */
export const MAX_OCR_PIXELS = 10_000_000;

/** Tesseract reports a high confidence for an empty answer; no text scores nothing. */
const score = (r: { text: string; confidence: number }) => (/[\p{L}\p{N}]/u.test(r.text) ? r.confidence : 0);

const normalise = (degrees: number) => Math.round((((degrees % 360) + 360) % 360) * 10) / 10;

/**
 * OCR of one page image, turned upright first. The direction of the text lines (projection
 * profiles) gives the skew and whether the page lies sideways; ascenders against descenders
 * suggest which way up. That best guess is read first; when tesseract is unsure of it, the page
 * is read turned by a half turn as well and the more confident reading kept.
 */
export async function recognizeUpright(raster: GrayRaster, ocr: OcrEngine, sourceDpi?: number, { assumeUpright = false } = {}): Promise<UprightText> {
  // A page known to be upright (typeset, rendered at 300 DPI) needs no analysis (0.1-0.4 s) and
  // no second reading: it is read once as it is.
  const geometry = assumeUpright ? null : await shrink(raster, ANALYSIS_SIDE).then((small) => ({ small, lines: measureTextGeometry(small) }));

  // Pages whose lines are clear and evenly spaced are text pages: their geometry is believed.
  // Otherwise (photos, charts, a few big words) edges mislead it and the page is read as it is.
  let first = 0;
  let linePitch: number | null = null;
  const lines = geometry?.lines;
  if (geometry && lines && lines.strength >= CLEAR_LINES && lines.linePitch !== null) {
    const toFull = raster.width / geometry.small.width;
    const axis = Math.abs(lines.lineAngle) < MIN_DESKEW ? 0 : Math.abs(lines.lineAngle + 90) < MIN_DESKEW ? -90 : lines.lineAngle;
    // A few lines (a chart's labels, a heading) do not say which way is up.
    const upsideDown = lines.lines >= MIN_VOTING_LINES && lines.uprightVotes <= -UNSURE_VOTES;
    first = upsideDown ? 180 - axis : -axis;
    linePitch = lines.linePitch * toFull;
  }
  // Tesseract reads sideways pages by itself (it finds vertical lines); upside-down text comes
  // out as garbage at low confidence, so a half turn is the one fallback.
  const candidates = assumeUpright ? [0] : [first, first + 180];

  // Large photos are reduced too: tesseract's WASM heap grows to the largest image it is given, and
  // never shrinks. A turn by other than a right angle enlarges the image (white corners): counted.
  const turn = (first * Math.PI) / 180;
  const [cos, sin] = [Math.abs(Math.cos(turn)), Math.abs(Math.sin(turn))];
  const turnedPixels = (raster.width * cos + raster.height * sin) * (raster.width * sin + raster.height * cos);
  const scale = Math.min(upscaleFactor(raster.width, linePitch), Math.sqrt(MAX_OCR_PIXELS / turnedPixels));
  // Enlarging aims at ~300 DPI text, so an image of unknown resolution is declared at that.
  const dpi = sourceDpi ? Math.round(sourceDpi * scale) : DEFAULT_DPI;
  const attempts: UprightText['attempts'] = [];
  let best: UprightText | null = null;
  for (const rotation of candidates) {
    // Read once: it moves to the OCR worker rather than being copied.
    const result = await ocr.recognize(await renderForOcr(raster, rotation, scale), { dpi, transfer: true });
    attempts.push({ rotation: normalise(rotation), confidence: Math.round(score(result)) });
    if (!best || score(result) > score(best) + 5) best = { ...result, rotation: normalise(rotation), attempts };
    if (score(best) >= LOW_CONFIDENCE) break;
  }
  return best!;
}
