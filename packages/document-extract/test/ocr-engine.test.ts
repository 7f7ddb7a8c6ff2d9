import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { createLazyOcrEngine, createOcrEngine, prepareForOcr, type OcrWorkerEvent } from '../src/ocr/index.js';
import { englishDataPath } from '../src/ocr/language-data.js';
import { decodeGray, openImage, renderForOcr } from '../src/ocr/prepare-image.js';
import { recognizeUpright } from '../src/ocr/recognize-upright.js';
import type { OcrEngine } from '../src/types.js';
import { waitFor } from '../../../tests/support/webhook-receiver.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');
/** 640x480 bilevel scan of 12 pt text; its ground truth is in the corpus. */
const page = readFileSync(path.join(corpus, 'image/phototest.tif'));
const QUICK = /The quick brown dog jumped over the\s+lazy fox\./;

let ocr: OcrEngine;
const events: OcrWorkerEvent[] = [];
beforeAll(async () => {
  ocr = await createOcrEngine({ workers: 2, recycleAfterJobs: 2, onWorkerEvent: (event) => events.push(event) });
});
afterAll(async () => {
  await ocr?.close();
});

describe('createOcrEngine', () => {
  it('reads a prepared page offline, with automatic page segmentation', async () => {
    const before = readdirSync(process.cwd());
    const { text, confidence } = await ocr.recognize(await prepareForOcr(page), { dpi: 300 });
    expect(text).toMatch(QUICK);
    expect(text).toContain('This is a lot of 12 point text to test the');
    expect(confidence).toBeGreaterThan(80);
    // Language data is read from the package; nothing is cached in the working directory.
    expect(readdirSync(process.cwd())).toEqual(before);
  });

  it("reads tessdata_fast's English model from its workspace package, byte for byte the published file", () => {
    // packages/tessdata-eng-fast/README.md: tessdata_fast 4.1.0 eng.traineddata (Debian's tesseract-ocr-eng).
    const model = gunzipSync(readFileSync(path.join(englishDataPath(), 'eng.traineddata.gz')));
    expect(model.byteLength).toBe(4_113_088);
    expect(createHash('sha256').update(model).digest('hex')).toBe('7d4322bd2a7749724879683fc3912cb542f19906c83bcc1a52132556427170b2');
  });

  it('serves concurrent jobs from its pool, recycling workers after their quota', async () => {
    const png = await prepareForOcr(page);
    events.length = 0;
    // Six jobs on two workers that are replaced every two jobs.
    const texts = await Promise.all(Array.from({ length: 6 }, () => ocr.recognize(png)));
    for (const { text } of texts) expect(text).toMatch(QUICK);
    const retired = events.filter((e) => e.type === 'stopped');
    // The first test left one worker with a job done: every worker that reached two was replaced.
    expect(retired.length).toBeGreaterThanOrEqual(2);
    for (const event of retired) expect(event).toMatchObject({ reason: 'quota', jobs: 2 });
    expect(events.filter((e) => e.type === 'started').length).toBeGreaterThanOrEqual(2);
    // Never more than two at once.
    for (const event of events) expect(event.workers).toBeLessThanOrEqual(2);
  });

  it("moves the image to its worker when asked to (the caller's buffer is left empty), copies it otherwise", async () => {
    const png = await prepareForOcr(page);
    const kept = Buffer.from(png);
    await expect(ocr.recognize(kept)).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
    expect(kept.equals(png)).toBe(true);
    const given = Buffer.from(png);
    await expect(ocr.recognize(given, { transfer: true })).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
    expect(given.buffer.byteLength).toBe(0);
    // A buffer cut from Node's shared pool cannot move without the rest of it: it is copied.
    const pooled = Buffer.from('tiny');
    await expect(ocr.recognize(pooled, { transfer: true })).rejects.toThrow();
    expect(pooled.toString()).toBe('tiny');
  });

  it('drops a queued job when its signal aborts, and stops idle workers', async () => {
    const seen: OcrWorkerEvent[] = [];
    const engine = await createOcrEngine({ workers: 1, idleTimeoutMs: 300, onWorkerEvent: (event) => seen.push(event) });
    try {
      const png = await prepareForOcr(page);
      const controller = new AbortController();
      const first = engine.recognize(png);
      const queued = engine.recognize(png, { signal: controller.signal });
      controller.abort();
      await expect(queued).rejects.toThrow(/cancelled/);
      await expect(first).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(seen).toContainEqual(expect.objectContaining({ type: 'stopped', reason: 'idle', jobs: 1 }));
      // A later job starts a worker again.
      await expect(engine.recognize(png)).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
      expect(seen.filter((e) => e.type === 'started')).toHaveLength(2);
    } finally {
      await engine.close();
    }
  });

  it('over its memory mark reads one page at a time and stops a worker once idle; under it, pages go side by side again', async () => {
    const png = await prepareForOcr(page);
    const seen: OcrWorkerEvent[] = [];
    let overMark = true;
    const engine = await createOcrEngine({ workers: 2, idleTimeoutMs: 60_000, overMemoryMark: () => overMark, onWorkerEvent: (event) => seen.push(event) });
    try {
      const texts = await Promise.all([engine.recognize(png), engine.recognize(png), engine.recognize(png)]);
      for (const { text } of texts) expect(text).toMatch(QUICK);
      // The worker started with the engine read all three: no second one started beside it.
      expect(seen.filter((e) => e.type === 'started')).toHaveLength(1);
      // Idle over the mark: stopped within a second or so, not after the 60 s idle timeout.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(seen).toContainEqual({ type: 'stopped', reason: 'idle', jobs: 3, workers: 0 });
      overMark = false;
      seen.length = 0;
      const again = await Promise.all([engine.recognize(png), engine.recognize(png)]);
      for (const { text } of again) expect(text).toMatch(QUICK);
      expect(seen.filter((e) => e.type === 'started')).toHaveLength(2);
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('replaces a worker after a large image, unless the next image waiting is as large', async () => {
    const small = await prepareForOcr(page);
    // The page enlarged twice over as grey bytes (PGM of 1280x960): a file four times as large.
    const { data, info } = await openImage(page).resize({ width: 1280 }).toColourspace('b-w').raw().toBuffer({ resolveWithObject: true });
    const pgm = () => Buffer.concat([Buffer.from(`P5\n${info.width} ${info.height}\n255\n`), data]);
    expect(small.byteLength).toBeLessThan(600_000);
    expect(pgm().byteLength).toBeGreaterThan(1_200_000);
    const seen: OcrWorkerEvent[] = [];
    const engine = await createOcrEngine({ workers: 1, recycleAfterImageBytes: 600_000, onWorkerEvent: (event) => seen.push(event) });
    try {
      await expect(engine.recognize(small)).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
      expect(seen.filter((e) => e.type === 'stopped')).toEqual([]);
      await expect(engine.recognize(pgm())).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
      // The job is answered first; the worker stops once it has read a blank image after it.
      const stopped = () => seen.filter((e) => e.type === 'stopped');
      await waitFor(stopped, (events) => events.length > 0, 5_000);
      expect(stopped()).toEqual([{ type: 'stopped', reason: 'large-image', jobs: 2, workers: 0 }]);
      // Two large images queued at once: the fresh worker reads both, and is replaced after the second only.
      seen.length = 0;
      const both = await Promise.all([engine.recognize(pgm()), engine.recognize(pgm())]);
      for (const { text } of both) expect(text).toMatch(QUICK);
      await waitFor(stopped, (events) => events.length > 0, 5_000);
      expect(seen).toEqual([
        { type: 'started', workers: 1 },
        { type: 'stopped', reason: 'large-image', jobs: 2, workers: 0 },
      ]);
    } finally {
      await engine.close();
    }
  }, 30_000);

  it('starts a lazy engine on first use only', async () => {
    const seen: OcrWorkerEvent[] = [];
    const lazy = createLazyOcrEngine({ workers: 3, onWorkerEvent: (event) => seen.push(event) });
    expect(lazy.parallelism).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toEqual([]);
    await expect(lazy.recognize(await prepareForOcr(page))).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
    expect(seen).toEqual([{ type: 'started', workers: 1 }]);
    await lazy.close();
    expect(seen.at(-1)).toMatchObject({ type: 'stopped', reason: 'closed' });
  });

  it('fails a job whose image tesseract cannot read, and keeps serving', async () => {
    await expect(ocr.recognize(Buffer.from('not an image'))).rejects.toBeInstanceOf(Error);
    const { text } = await ocr.recognize(await prepareForOcr(page));
    expect(text).toMatch(QUICK);
  });

  it('bounds worker start-up with a timeout', async () => {
    const started = Date.now();
    await expect(createOcrEngine({ workers: 1, createTimeoutMs: 1 })).rejects.toThrow(/did not start within 1 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('rejects work after close', async () => {
    const engine = await createOcrEngine({ workers: 1 });
    const pending = engine.recognize(await prepareForOcr(page));
    await engine.close();
    // A job already running finishes; new ones are refused.
    await expect(pending).resolves.toMatchObject({ text: expect.stringMatching(QUICK) });
    await expect(engine.recognize(Buffer.alloc(1))).rejects.toThrow(/closed/);
  });

  it("gives its workers tesseract.js's LSTM-only core (our patch of its core choice)", async () => {
    // What the worker script asks for with the LSTM_ONLY engine mode that startWorker uses.
    const fromTesseract = createRequire(createRequire(import.meta.url).resolve('tesseract.js'));
    const getCore = fromTesseract('./worker-script/node/getCore.js') as (lstmOnly: boolean, corePath: undefined, res: { progress: () => void }) => Promise<unknown>;
    const core = await getCore(true, undefined, { progress: () => undefined });
    const lstmOnlyCores = ['relaxedsimd-lstm', 'simd-lstm', 'lstm'].map((build) => fromTesseract(`tesseract.js-core/tesseract-core-${build}`));
    expect(lstmOnlyCores).toContain(core);
  });
});

/** A PBM's size and its rows of bits (1 = ink), one string of 0s and 1s a row. */
function readPbm(pbm: Buffer): { width: number; height: number; rows: string[] } {
  const header = /^P4\n(\d+) (\d+)\n/.exec(pbm.subarray(0, 32).toString('latin1'));
  if (!header) throw new Error('not a binary PBM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const rowBytes = (width + 7) >> 3;
  const bits = pbm.subarray(header[0].length);
  expect(bits.length).toBe(rowBytes * height);
  const rows = Array.from({ length: height }, (_, y) =>
    Array.from(bits.subarray(y * rowBytes, (y + 1) * rowBytes), (byte) => byte.toString(2).padStart(8, '0')).join('').slice(0, width),
  );
  return { width, height, rows };
}

/** The size and grey bytes of a binary PGM (P5, 8 bits a pixel). */
function readPgm(pgm: Buffer): { width: number; height: number; grey: Buffer } {
  const header = /^P5\n(\d+) (\d+)\n255\n/.exec(pgm.subarray(0, 32).toString('latin1'));
  if (!header) throw new Error('not a binary PGM');
  const [width, height] = [Number(header[1]), Number(header[2])];
  const grey = pgm.subarray(header[0].length);
  expect(grey.length).toBe(width * height);
  return { width, height, grey };
}

describe('prepareForOcr', () => {
  it('gives a two-tone page as one bit a pixel (PBM), enlarged towards 300 DPI, with a white border', async () => {
    const { width, height, rows } = readPbm(await prepareForOcr(page));
    expect(width).toBeGreaterThan(1500);
    expect(height).toBeGreaterThan(1000);
    for (const row of [...rows.slice(0, 12), ...rows.slice(-12)]) expect(row).not.toContain('1');
    const ink = rows.join('').split('1').length - 1;
    // Text: a few per cent of the page is ink, not none and not all.
    expect(ink / (width * height)).toBeGreaterThan(0.01);
    expect(ink / (width * height)).toBeLessThan(0.2);
  });

  /** A 200x100 grey image, its left half at `left`, its right half at `right`, as a PNG. */
  const halves = (left: number, right: number) => {
    const greys = Buffer.alloc(200 * 100);
    for (let y = 0; y < 100; y++) greys.fill(left, y * 200, y * 200 + 100).fill(right, y * 200 + 100, (y + 1) * 200);
    return sharp(greys, { raw: { width: 200, height: 100, channels: 1 } }).png().toBuffer();
  };

  it('marks the ink, and only the ink, as 1', async () => {
    const { rows, width } = readPbm(await prepareForOcr(await halves(20, 235)));
    // Enlarged 4x (at most, towards 1,800 pixels wide) inside a 12-pixel border: the dark half
    // spans 12 to 412, give or take the resampled edge.
    expect(width).toBe(800 + 24);
    const middle = rows[Math.floor(rows.length / 2)];
    expect(middle.slice(0, 12)).toBe('0'.repeat(12));
    expect(middle.slice(14, 410)).toBe('1'.repeat(396));
    expect(middle.slice(414)).toBe('0'.repeat(width - 414));
  });

  it('thresholds a page that needs no turn or resize as it is, inside the border', async () => {
    const raster = await decodeGray(openImage(await halves(20, 235)));
    const { width, height, rows } = readPbm(await renderForOcr(raster, 0, 1));
    expect([width, height]).toEqual([224, 124]);
    const inked = '0'.repeat(12) + '1'.repeat(100) + '0'.repeat(112);
    expect(rows).toEqual([...Array(12).fill('0'.repeat(224)), ...Array(100).fill(inked), ...Array(12).fill('0'.repeat(224))]);
  });

  it('keeps a faded image grey (a PGM): its greys are all mid-tones', async () => {
    const { width, height, grey } = readPgm(await prepareForOcr(await halves(90, 170)));
    // Enlarged 4x inside the 12-pixel border.
    expect([width, height]).toEqual([824, 424]);
    // The white border, then the two halves, still apart and grey (not thresholded to 0 and 255).
    expect(grey[0]).toBe(255);
    const middleRow = grey.subarray(Math.floor(height / 2) * width, Math.floor(height / 2 + 1) * width);
    const [left, right] = [middleRow[200], middleRow[600]];
    expect(left).toBeLessThan(right);
    expect(right).toBeGreaterThan(0);
    expect(right).toBeLessThan(255);
  });

  it('keeps a photo (mostly mid-tones) grey: a PGM', async () => {
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 30 } } }).jpeg().toBuffer();
    const { width, grey } = readPgm(await prepareForOcr(photo));
    expect(width).toBeGreaterThan(1500);
    // Greys, not two tones.
    expect(new Set(grey).size).toBeGreaterThan(100);
  });
});

describe('recognizeUpright', () => {
  const turned = (degrees: number) => sharp(page).rotate(degrees, { background: '#ffffff' }).png().toBuffer();

  it.each([
    [180, 180],
    [90, 270],
    [8, 352],
  ])('reads a page turned %i° clockwise (turning it back by %i°)', async (degrees, back) => {
    const result = await recognizeUpright(await decodeGray(openImage(await turned(degrees))), ocr);
    expect(result.text).toMatch(QUICK);
    expect(Math.abs(result.rotation - back)).toBeLessThan(1.5);
  });
});
