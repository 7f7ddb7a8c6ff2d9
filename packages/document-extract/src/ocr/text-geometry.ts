/** A single-channel 8-bit raster (0 = black). */
export interface GrayRaster {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface TextGeometry {
  /** Angle of the text lines in degrees, clockwise from horizontal (image y points down), in [-90, 90). */
  lineAngle: number;
  /** How much peakier the best projection is than a flat one; text pages score well above 1.5. */
  strength: number;
  /** Median distance between text lines in raster pixels, or null when no regular lines were found. */
  linePitch: number | null;
  /**
   * Mean over the lines (-1 to 1) of the evidence that the lines, once made horizontal by turning by -lineAngle, read right way up:
   * ink above the x-height band (ascenders, capitals) outweighs ink below it (descenders) in
   * Latin script. Positive means upright, negative upside down, near 0 unknown.
   */
  uprightVotes: number;
  /** Text lines the votes come from. */
  lines: number;
}

const MAX_SAMPLES = 150_000;
/** Skew search: every half degree within this range of the two axes, then a 0.1° refinement. */
const SEARCH_DEGREES = 20;

/** How many pixels of the raster have each grey level. */
export function greyHistogram(data: Uint8Array): Uint32Array {
  const hist = new Uint32Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i]]++;
  return hist;
}

/**
 * Otsu's threshold over a grey histogram of `pixels` pixels: the level that splits it into two
 * classes of least variance within them. Levels at or below it are ink.
 */
export function otsuThreshold(hist: Uint32Array, pixels: number): number {
  let sum = 0;
  for (let t = 0; t < 256; t++) sum += t * hist[t];
  let sumB = 0;
  let weightB = 0;
  let best = 127;
  let bestVar = -1;
  for (let t = 0; t < 256; t++) {
    weightB += hist[t];
    if (weightB === 0) continue;
    const weightF = pixels - weightB;
    if (weightF === 0) break;
    sumB += t * hist[t];
    const between = weightB * weightF * (sumB / weightB - (sum - sumB) / weightF) ** 2;
    if (between > bestVar) [bestVar, best] = [between, t];
  }
  return best;
}

/** Histogram of ink positions across lines at `angle` (perpendicular distance, 1 px bins). */
function profile(xs: Float32Array, ys: Float32Array, angle: number, size: number): Float64Array {
  const rad = (angle * Math.PI) / 180;
  const sin = Math.sin(rad);
  const cos = Math.cos(rad);
  const bins = new Float64Array(2 * size + 2);
  for (let i = 0; i < xs.length; i++) bins[Math.round(-xs[i] * sin + ys[i] * cos) + size]++;
  return bins;
}

/**
 * Sharpness of a profile: squared differences between neighbouring bins. Text lines at the right
 * angle alternate ink and white at the line pitch; the envelope of columns and margins, which
 * piles up in every direction, adds only at its few edges.
 */
function sharpness(bins: Float64Array): number {
  let s = 0;
  for (let i = 1; i < bins.length; i++) s += (bins[i] - bins[i - 1]) ** 2;
  return s;
}

function bestAngle(xs: Float32Array, ys: Float32Array, size: number, around: number): { angle: number; score: number } {
  let best = { angle: around, score: -1 };
  for (let a = around - SEARCH_DEGREES; a <= around + SEARCH_DEGREES; a += 0.5) {
    const score = sharpness(profile(xs, ys, a, size));
    if (score > best.score) best = { angle: a, score };
  }
  const coarse = best.angle;
  for (let a = coarse - 0.4; a <= coarse + 0.41; a += 0.1) {
    const score = sharpness(profile(xs, ys, a, size));
    if (score > best.score) best = { angle: a, score };
  }
  return best;
}

/**
 * Line pitch: the lag (in bins) at which the profile best matches itself shifted, i.e. the
 * first strong autocorrelation peak. Null when nothing repeats (a single line, a photo).
 */
function linePitch(bins: Float64Array): number | null {
  let mean = 0;
  for (const v of bins) mean += v;
  mean /= bins.length;
  const centred = bins.map((v) => v - mean);
  let energy = 0;
  for (const v of centred) energy += v * v;
  if (energy === 0) return null;
  const corr = (lag: number) => {
    let s = 0;
    for (let i = lag; i < centred.length; i++) s += centred[i] * centred[i - lag];
    return s / energy;
  };
  const maxLag = Math.min(300, Math.floor(bins.length / 3));
  const values = [1];
  for (let lag = 1; lag <= maxLag; lag++) values.push(corr(lag));
  // Skip the central peak (until the profile no longer matches itself), then take the first
  // echo nearly as strong as the strongest: twice the pitch echoes too, a little weaker.
  let start = 1;
  while (start < maxLag && values[start] > 0.1) start++;
  let strongest = 0;
  for (let l = start; l < maxLag; l++) strongest = Math.max(strongest, values[l]);
  if (strongest < 0.2) return null;
  for (let l = start; l < maxLag; l++) if (values[l] >= values[l - 1] && values[l] >= values[l + 1] && values[l] >= strongest * 0.8) return l;
  return null;
}

/** Text lines are runs of bins whose ink exceeds a share of the busiest bin. */
function textLines(bins: Float64Array, pitch: number): Array<{ start: number; end: number }> {
  let max = 0;
  for (const v of bins) max = Math.max(max, v);
  const threshold = max * 0.05;
  const lines: Array<{ start: number; end: number }> = [];
  let start = -1;
  for (let i = 0; i <= bins.length; i++) {
    const inked = i < bins.length && bins[i] > threshold;
    if (inked && start < 0) start = i;
    if (!inked && start >= 0) {
      // Runs far thinner or taller than a line are specks, rules or pictures.
      if (i - start >= pitch * 0.25 && i - start <= pitch * 1.5) lines.push({ start, end: i });
      start = -1;
    }
  }
  return lines;
}

/**
 * Finds the direction of the text lines on a page by projection profiles: the ink of a page of
 * text, projected across its lines, piles up in sharp peaks only at the lines' true angle. Both
 * near-horizontal and near-vertical directions are searched, which gives the skew, whether the
 * page lies sideways, and (from ascenders against descenders) whether it is upside down.
 */
export function measureTextGeometry(raster: GrayRaster): TextGeometry | null {
  const { data, width, height } = raster;
  const threshold = otsuThreshold(greyHistogram(data), data.length);
  let dark = 0;
  for (let i = 0; i < data.length; i++) if (data[i] <= threshold) dark++;
  const share = dark / data.length;
  // Photos, blank pages and inverted pages do not look like dark text on paper.
  if (share < 0.002 || share > 0.35) return null;
  const step = Math.max(1, Math.ceil(dark / MAX_SAMPLES));
  const count = Math.ceil(dark / step);
  const xs = new Float32Array(count);
  const ys = new Float32Array(count);
  let n = 0;
  let seen = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x] <= threshold && seen++ % step === 0 && n < count) {
        xs[n] = x - width / 2;
        ys[n] = y - height / 2;
        n++;
      }
    }
  }
  const size = Math.ceil(Math.hypot(width, height) / 2) + 1;
  const horizontal = bestAngle(xs.subarray(0, n), ys.subarray(0, n), size, 0);
  const vertical = bestAngle(xs.subarray(0, n), ys.subarray(0, n), size, 90);
  const best = vertical.score > horizontal.score ? vertical : horizontal;
  const other = best === vertical ? horizontal : vertical;
  const lineAngle = best.angle >= 90 ? best.angle - 180 : best.angle;

  const bins = profile(xs.subarray(0, n), ys.subarray(0, n), lineAngle, size);
  const pitch = linePitch(bins);
  const lines = pitch ? textLines(bins, pitch) : [];

  // In each line, the band holding at least half the line's peak ink is the x-height band.
  let votes = 0;
  for (const line of lines) {
    let peak = 0;
    for (let i = line.start; i < line.end; i++) peak = Math.max(peak, bins[i]);
    let top = line.start;
    while (bins[top] < peak * 0.5) top++;
    let bottom = line.end - 1;
    while (bins[bottom] < peak * 0.5) bottom--;
    let above = 0;
    let below = 0;
    for (let i = line.start; i < top; i++) above += bins[i];
    for (let i = bottom + 1; i < line.end; i++) below += bins[i];
    if (above + below > 0) votes += (above - below) / (above + below);
  }
  if (lines.length > 0) votes /= lines.length;
  // The projection axis at lineAngle points down the page once the page is turned by -lineAngle.
  return { lineAngle, strength: best.score / Math.max(1, other.score), linePitch: pitch, uprightVotes: votes, lines: lines.length };
}
