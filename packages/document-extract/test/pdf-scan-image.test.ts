import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { imagePdf, type PlacedImage } from '../../../tests/support/hand-written-pdf.js';
import type { GrayRaster } from '../src/ocr/text-geometry.js';
import { openPdf } from '../src/pdf/open-pdf.js';
import { readScanImage, renderPage, type RenderedPage } from '../src/pdf/page-ocr.js';
import { choosePageReading, documentTraits, fetchPage, type PageReading } from '../src/pdf/read-page.js';

// The corpus lives in shared/, beside the repository; it is read in place, never copied.
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const corpus = path.resolve(repoRoot, '../shared/corpus/docs');

// A 300 x 200 scan: a black block at its top left, a grey one at its bottom right, white
// elsewhere. Every turn and mirror of it looks different.
const WIDTH = 300;
const HEIGHT = 200;
const shade = (x: number, y: number) => (x < 120 && y < 80 ? 0 : x >= 220 && y >= 140 ? 128 : 255);
const grey = Buffer.alloc(WIDTH * HEIGHT);
for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) grey[y * WIDTH + x] = shade(x, y);
const ROW_BYTES = Math.ceil(WIDTH / 8);
const bits = Buffer.alloc(ROW_BYTES * HEIGHT);
for (let y = 0; y < HEIGHT; y++) for (let x = 0; x < WIDTH; x++) if (shade(x, y) > 0) bits[y * ROW_BYTES + (x >> 3)] |= 0x80 >> (x & 7);

// At 300 DPI the scan is 72 x 48 points; sideways placements stand it on a 48 x 72 page.
const LANDSCAPE: [number, number] = [72, 48];
const PORTRAIT: [number, number] = [48, 72];
const PLACEMENTS: Array<[string, number[], [number, number]]> = [
  ['as it is', [72, 0, 0, 48, 0, 0], LANDSCAPE],
  ['mirrored left to right', [-72, 0, 0, 48, 72, 0], LANDSCAPE],
  ['upside down (mirrored top to bottom)', [72, 0, 0, -48, 0, 48], LANDSCAPE],
  ['turned by a half turn', [-72, 0, 0, -48, 72, 48], LANDSCAPE],
  ['turned a quarter clockwise', [0, -72, 48, 0, 0, 72], PORTRAIT],
  ['turned a quarter anticlockwise', [0, 72, -48, 0, 48, 0], PORTRAIT],
  ['transposed', [0, -72, -48, 0, 48, 72], PORTRAIT],
  ['transposed the other way', [0, 72, 48, 0, 0, 0], PORTRAIT],
];

interface PagePixels {
  reading: PageReading;
  scan: RenderedPage | null;
  rendered: RenderedPage;
}

async function pagePixels(bytes: Buffer): Promise<PagePixels> {
  const pdf = await openPdf(bytes);
  try {
    const traits = await documentTraits(pdf, bytes);
    const fetched = await fetchPage(pdf, traits, 1);
    const reading = await choosePageReading(fetched, traits, pdf.pdfjs);
    const scan = reading.scan ? await readScanImage(fetched.page, reading.scan, pdf.pdfjs) : null;
    return { reading, scan, rendered: await renderPage(fetched.page) };
  } finally {
    await pdf.destroy();
  }
}

/** Mean absolute difference of two rasters of (about) one size, over what they share. */
function meanDifference(a: GrayRaster, b: GrayRaster): number {
  expect(Math.abs(a.width - b.width)).toBeLessThanOrEqual(1);
  expect(Math.abs(a.height - b.height)).toBeLessThanOrEqual(1);
  const [width, height] = [Math.min(a.width, b.width), Math.min(a.height, b.height)];
  let sum = 0;
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) sum += Math.abs(a.data[y * a.width + x] - b.data[y * b.width + x]);
  return sum / (width * height);
}

const image = (overrides: Partial<PlacedImage>): Buffer =>
  imagePdf({ pixels: grey, width: WIDTH, height: HEIGHT, bitsPerComponent: 8, matrix: [72, 0, 0, 48, 0, 0], mediaBox: LANDSCAPE, ...overrides });

describe('scanned PDF pages are read from their image, as the page shows it', () => {
  it.each(PLACEMENTS)('gives the pixels of the rendered page for an image %s', async (_, matrix, mediaBox) => {
    const { reading, scan, rendered } = await pagePixels(image({ matrix, mediaBox }));
    expect(reading.ocr).toBe('no text layer');
    expect(scan).not.toBeNull();
    expect(scan!.dpi).toBe(300);
    // Drawn wrongly turned, a quarter of the pixels or more would differ by 128-255.
    expect(meanDifference(scan!.raster, rendered.raster)).toBeLessThan(3);
  });

  it('follows the page’s own rotation, reads one-bit scans and puts transparent parts on white', async () => {
    for (const overrides of [{ rotate: 90 }, { rotate: 270, matrix: PLACEMENTS[4][1], mediaBox: PORTRAIT }, { pixels: bits, bitsPerComponent: 1 as const }, { pixels: bits, bitsPerComponent: 1 as const, matrix: PLACEMENTS[5][1], mediaBox: PORTRAIT }]) {
      const { scan, rendered } = await pagePixels(image(overrides));
      expect(scan).not.toBeNull();
      expect(meanDifference(scan!.raster, rendered.raster)).toBeLessThan(3);
    }
    // Opaque only on the left half: the right half shows the page, white.
    const opacity = Buffer.alloc(WIDTH * HEIGHT);
    for (let y = 0; y < HEIGHT; y++) opacity.fill(255, y * WIDTH, y * WIDTH + WIDTH / 2);
    const { scan, rendered } = await pagePixels(image({ pixels: Buffer.alloc(WIDTH * HEIGHT), softMask: opacity }));
    expect(scan).not.toBeNull();
    expect(scan!.raster.data[10 * WIDTH + 10]).toBe(0);
    expect(scan!.raster.data[10 * WIDTH + WIDTH - 10]).toBe(255);
    expect(meanDifference(scan!.raster, rendered.raster)).toBeLessThan(3);
  });

  it('brings a coarse scan to 300 DPI and keeps a fine one at its own resolution', async () => {
    // 300 x 200 pixels over 144 x 96 points: 150 DPI, enlarged twice.
    const coarse = await pagePixels(image({ matrix: [144, 0, 0, 96, 0, 0], mediaBox: [144, 96] }));
    expect(coarse.scan).toMatchObject({ dpi: 300, raster: { width: 600, height: 400 } });
    expect(meanDifference(coarse.scan!.raster, coarse.rendered.raster)).toBeLessThan(8);
    // Over 36 x 24 points: 600 DPI, which the rendering would reduce to 300.
    const fine = await pagePixels(image({ matrix: [36, 0, 0, 24, 0, 0], mediaBox: [36, 24] }));
    expect(fine.scan).toMatchObject({ dpi: 600, raster: { width: 300, height: 200 } });
  });

  it('renders the page when the image does not stand for it', async () => {
    // A photo on half the page, one askew, one sticking out, one beside a drawn box.
    for (const overrides of [
      { matrix: [72, 0, 0, 48, 0, 0], mediaBox: [144, 48] as [number, number] },
      { matrix: [70, 12, -8, 46, 6, 0] },
      { matrix: [72, 0, 0, 48, 10, 0] },
      { extra: '0 0 0 RG 2 w 4 4 20 20 re S' },
    ]) {
      const { reading, scan } = await pagePixels(image(overrides));
      expect(reading.ocr).toBe('no text layer');
      expect(scan).toBeNull();
    }
  });
});

describe('pages rendered for OCR', () => {
  it('are drawn in strips that join up into the page drawn whole', async () => {
    const bytes = readFileSync(path.join(corpus, 'pdf/TAMReview.pdf'));
    const pdf = await openPdf(bytes);
    try {
      const page = await pdf.doc.getPage(5);
      const whole = await renderPage(page, { stripPixels: Infinity });
      const strips = await renderPage(page);
      expect(whole.raster).toMatchObject({ width: 2481, height: 3509 });
      expect(strips.dpi).toBe(whole.dpi);
      // Drawn shifted, a glyph's edges can come out a shade different, on a few rows (58 of 3509
      // here). A strip drawn out of place, even by one row, changes every row with text in it
      // (1557 rows here, mean difference 0.017).
      const { width, height } = whole.raster;
      let differing = 0;
      for (let y = 0; y < height; y++) {
        const row = (r: GrayRaster) => r.data.subarray(y * width, (y + 1) * width);
        if (Buffer.compare(row(strips.raster), row(whole.raster)) !== 0) differing++;
      }
      expect(differing).toBeLessThan(height * 0.05);
      expect(meanDifference(strips.raster, whole.raster)).toBeLessThan(0.002);
    } finally {
      await pdf.destroy();
    }
  });
});
