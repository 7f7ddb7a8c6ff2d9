import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { DocumentError } from '../src/errors.js';
import { decodeHeicGray } from '../src/image/heic-thread.js';
import { extractImage } from '../src/image/index.js';
import type { ImageKind } from '../src/image/index.js';
import { createOcrEngine } from '../src/ocr/index.js';
import type { ExtractedDocument, OcrEngine } from '../src/types.js';
import { wordF1 } from '../../../tests/support/word-f1.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

interface ManifestEntry {
  path: string;
  type: string;
  pages?: number;
  reference: string | null;
  mustContain?: string[];
  mustNotContain?: string[];
}

const manifest = JSON.parse(readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as { files: ManifestEntry[] };
const files = manifest.files.filter((f) => f.type === 'image' && f.reference);
const read = (relative: string): Buffer => readFileSync(path.join(corpus, relative));
const withoutPageBreaks = (text: string) => text.replace(/^=== Page Break ===$/gm, ' ');
const KINDS: Record<string, ImageKind> = { tif: 'tiff', tiff: 'tiff', jpg: 'jpeg', jpeg: 'jpeg', png: 'png', heic: 'heic' };
const kindOf = (file: string): ImageKind => KINDS[path.extname(file).slice(1).toLowerCase()];

/** CRC-32 as PNG chunks need it. */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A few hundred bytes that declare a 30000x30000 greyscale PNG (900 megapixels). */
function pixelBomb(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(30_000, 0);
  header.writeUInt32BE(30_000, 4);
  header.set([8, 0, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(30_001 * 4))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

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
const results = new Map<string, { doc: ExtractedDocument; f1: number; seconds: number }>();

// Each corpus image is OCR'd once; the tests below read the results.
beforeAll(async () => {
  ocr = await createOcrEngine({ workers: 1 });
  for (const file of files) {
    const started = Date.now();
    const doc = await extractImage(read(file.path), kindOf(file.path), { output: 'plain', ocr });
    const f1 = wordF1(doc.pages.join('\n'), withoutPageBreaks(read(file.reference!).toString('utf8')));
    results.set(file.path, { doc, f1, seconds: (Date.now() - started) / 1000 });
  }
}, 600_000);

afterAll(async () => {
  await ocr?.close();
});

describe(`image corpus (${files.length} files) against the references`, () => {
  it('reaches a mean word F1 of at least 0.90', () => {
    const lines = files.map((f) => {
      const r = results.get(f.path)!;
      return `${f.path.padEnd(32)} F1 ${r.f1.toFixed(3)}  pages ${r.doc.pages.length}  ${r.seconds.toFixed(1)} s  ${r.doc.notes.join('; ')}`;
    });
    const mean = [...results.values()].reduce((s, r) => s + r.f1, 0) / results.size;
    console.log(`image: mean word F1 ${mean.toFixed(3)}\n${lines.join('\n')}`);
    expect(results.size).toBe(files.length);
    expect(mean).toBeGreaterThanOrEqual(0.9);
  });

  it('gives one page per image page (every page of a multi-page TIFF)', () => {
    for (const file of files) expect({ file: file.path, pages: results.get(file.path)!.doc.pages.length }).toEqual({ file: file.path, pages: file.pages ?? 1 });
    expect(results.get('image/testTIFF_multipage.tif')!.doc.pages.map((p) => p.includes('Page 1') || p.includes('Page 2'))).toEqual([true, true]);
    for (const file of files) expect({ file: file.path, ocrPages: results.get(file.path)!.doc.ocrPages }).toEqual({ file: file.path, ocrPages: file.pages ?? 1 });
  });

  it('meets the MANIFEST must / must-not contain checks', () => {
    for (const file of files) {
      const text = results.get(file.path)!.doc.pages.join('\n').replace(/\s+/g, ' ');
      for (const expected of file.mustContain ?? []) expect({ file: file.path, expected, found: text.includes(expected) }).toEqual({ file: file.path, expected, found: true });
      for (const forbidden of file.mustNotContain ?? []) expect({ file: file.path, forbidden, found: text.includes(forbidden) }).toEqual({ file: file.path, forbidden, found: false });
    }
  });

  it('reads the skewed page and the EXIF-rotated photo upright', () => {
    expect(results.get('image/testRotated+10.png')!.f1).toBeGreaterThan(0.95);
    expect(results.get('image/simple-90.jpg')!.doc.pages[0].trim()).toBe('Tesseract.js');
  });
});

describe('extractImage: hostile and unusual input', () => {
  it('refuses a pixel bomb fast with 400-001', async () => {
    const bomb = pixelBomb();
    expect(bomb.length).toBeLessThan(1_000);
    const started = Date.now();
    const error = await failure(extractImage(bomb, 'png', { output: 'plain', ocr }));
    expect(error.code).toBe('400-001');
    expect(error.details.join(' ')).toMatch(/30000x30000 pixels/);
    expect(Date.now() - started).toBeLessThan(2_000);
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
    const tooLarge = await decodeHeicGray(heic, 1_000_000);
    expect(tooLarge).toEqual({ width: 3024, height: 4032, gray: null });
    await expect(decodeHeicGray(Buffer.from('not an image at all, only a few words'), 100_000_000)).rejects.toThrow(/not a HEIC image/);
  }, 60_000);

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
