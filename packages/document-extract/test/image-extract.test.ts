import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DocumentError } from '../src/errors.js';
import { decodeHeicGray } from '../src/image/heic-thread.js';
import { extractImage } from '../src/image/index.js';
import { createOcrEngine } from '../src/ocr/index.js';
import type { OcrEngine } from '../src/types.js';
import { pixelBomb } from '../../../tests/support/hostile-files.js';
import { cpuMs } from '../../../tests/support/cpu-time.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));

/** Bytes per value of each TIFF field type (1 BYTE ... 12 DOUBLE). */
const TIFF_TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8];
const OFFSET_TAGS = new Set([273, 324]); // StripOffsets, TileOffsets

/**
 * Two little-endian single-page TIFFs chained into one two-page file: the second file's
 * offsets are moved past the first, and the first IFD points on to the second.
 */
function twoPageTiff(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.concat([a, b]);
  const shift = a.length;
  const ifdOf = (base: number) => base + out.readUInt32LE(base + 4);
  const entries = (ifd: number) => Array.from({ length: out.readUInt16LE(ifd) }, (_, i) => ifd + 2 + i * 12);
  const secondIfd = ifdOf(shift);
  for (const entry of entries(secondIfd)) {
    const tag = out.readUInt16LE(entry);
    const size = TIFF_TYPE_SIZE[out.readUInt16LE(entry + 2)] * out.readUInt32LE(entry + 4);
    const valueAt = size > 4 ? shift + out.readUInt32LE(entry + 8) : entry + 8;
    if (size > 4) out.writeUInt32LE(valueAt, entry + 8);
    if (OFFSET_TAGS.has(tag)) {
      const count = out.readUInt32LE(entry + 4);
      const wide = out.readUInt16LE(entry + 2) === 4;
      for (let i = 0; i < count; i++) {
        if (wide) out.writeUInt32LE(out.readUInt32LE(valueAt + i * 4) + shift, valueAt + i * 4);
        else out.writeUInt16LE(out.readUInt16LE(valueAt + i * 2) + shift, valueAt + i * 2);
      }
    }
  }
  const firstIfd = ifdOf(0);
  out.writeUInt32LE(secondIfd, firstIfd + 2 + out.readUInt16LE(firstIfd) * 12);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DocumentError);
  return error as DocumentError;
}

let ocr: OcrEngine;

// The corpus images are OCR'd once, through the API, by tests/parser-corpus-api.test.ts (F1,
// pages, MANIFEST checks, skew and EXIF orientation); these tests cover what it cannot send.
beforeAll(async () => {
  ocr = await createOcrEngine({ workers: 1 });
});

afterAll(async () => {
  await ocr?.close();
});

describe('extractImage: hostile and unusual input', () => {
  it('refuses a pixel bomb fast with 400-001', async () => {
    const bomb = pixelBomb();
    expect(bomb.length).toBeLessThan(1_000);
    const started = cpuMs();
    const error = await failure(extractImage(bomb, 'png', { output: 'plain', ocr }));
    expect(error.code).toBe('400-001');
    expect(error.details.join(' ')).toMatch(/30000x30000 pixels/);
    expect(cpuMs() - started).toBeLessThan(2_000);
  });

  it('refuses a corrupt image with 400-001', async () => {
    const jpeg = read('image/testocr.jpg');
    const error = await failure(extractImage(jpeg.subarray(0, 600), 'jpeg', { output: 'plain', ocr }));
    expect(error.code).toBe('400-001');
    const garbage = await failure(extractImage(Buffer.from('II*\u0000 not really a tiff'), 'tiff', { output: 'plain', ocr }));
    expect(garbage.code).toBe('400-001');
  });

  it('reads every page of a TIFF whose pages differ in size', async () => {
    const page = read('image/phototest.tif');
    const first = await sharp(page).tiff({ compression: 'lzw' }).toBuffer();
    const second = await sharp(page).resize({ width: 1100 }).tiff({ compression: 'lzw' }).toBuffer();
    const tiff = twoPageTiff(first, second);
    const sizes = await Promise.all([0, 1].map((p) => sharp(tiff, { page: p }).metadata()));
    expect(sizes.map((m) => m.width)).toEqual([640, 1100]);
    const doc = await extractImage(tiff, 'tiff', { output: 'plain', ocr });
    expect(doc.pages).toHaveLength(2);
    for (const text of doc.pages) expect(text).toContain('quick brown dog');
  }, 60_000);

  it('decodes HEIC in a thread of its own: grey pixels back, decoder errors and the pixel limit passed on', async () => {
    const heic = read('image/IMG_6839.heic');
    const decoded = await decodeHeicGray(heic, 100_000_000);
    expect([decoded.width, decoded.height]).toEqual([3024, 4032]);
    expect(decoded.gray).toBeInstanceOf(Uint8Array);
    expect(decoded.gray!.length).toBe(3024 * 4032);
    // A photographed page in dim light: grey paper (median 106) with black print (1st percentile 3);
    // an empty or missing colour plane gives neither.
    const sorted = Uint8Array.from(decoded.gray!).sort();
    const percentile = (p: number) => sorted[Math.floor((sorted.length - 1) * p)];
    expect(percentile(0.5)).toBeGreaterThan(80);
    expect(percentile(0.5)).toBeLessThan(140);
    expect(percentile(0.01)).toBeLessThan(40);
    const tooLarge = await decodeHeicGray(heic, 1_000_000);
    expect(tooLarge).toEqual({ width: 3024, height: 4032, gray: null, byTiles: false });
    await expect(decodeHeicGray(Buffer.from('not an image at all, only a few words'), 100_000_000)).rejects.toThrow(/not a HEIC image/);
  }, 60_000);

  it('reads a turned grid photo tile by tile to the greys of the whole image, byte for byte', async () => {
    // The corpus's iPhone photo: 6x8 tiles of 512 pixels (a 4032x3024 grid turned upright), whose
    // overhang (48 pixels) lies on the leading edge once turned.
    for (const bytes of [read('image/IMG_6839.heic'), readFileSync(new URL('./fixtures/bands-10bit.heic', import.meta.url))]) {
      const [tiled, whole] = await Promise.all([decodeHeicGray(bytes, 100_000_000), decodeHeicGray(bytes, 100_000_000, { byTiles: false })]);
      expect([tiled.byTiles, whole.byTiles]).toEqual([true, false]);
      expect([tiled.width, tiled.height]).toEqual([whole.width, whole.height]);
      expect(Buffer.compare(Buffer.from(tiled.gray!), Buffer.from(whole.gray!))).toBe(0);
    }
  }, 60_000);

  it('decodes 10-bit HEIC to the same greys as 8-bit, and puts transparent pixels on white', async () => {
    const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
    // Four vertical bands 16 pixels wide; one sample from the middle of each, on a given row.
    const bands = (decoded: { width: number; gray: Uint8Array | null }, row: number) => [8, 24, 40, 56].map((x) => decoded.gray![row * decoded.width + x]);
    const expectGreyBands = (values: number[]) => values.forEach((value, i) => expect(Math.abs(value - [0, 85, 170, 255][i])).toBeLessThanOrEqual(2));
    const tenBit = await decodeHeicGray(fixture('bands-10bit.heic'), 100_000_000);
    expectGreyBands(bands(tenBit, 16));
    const withAlpha = await decodeHeicGray(fixture('bands-alpha.heic'), 100_000_000);
    // Alpha lies outside the colour tiles: such an image is decoded whole.
    expect(withAlpha.byTiles).toBe(false);
    expectGreyBands(bands(withAlpha, 4));
    expect(bands(withAlpha, 28)).toEqual([255, 255, 255, 255]);
  }, 30_000);

  it('fails with 500-001 without an OCR engine', async () => {
    const error = await failure(extractImage(read('image/phototest.tif'), 'tiff', { output: 'plain' }));
    expect(error.code).toBe('500-001');
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(extractImage(read('image/testTIFF_multipage.tif'), 'tiff', { output: 'plain', ocr, signal: controller.signal }));
    expect(error.code).toBe('500-001');
  });
});
