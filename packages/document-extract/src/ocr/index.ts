export { createLazyOcrEngine, createOcrEngine, type OcrEngineOptions, type OcrWorkerEvent } from './ocr-engine.js';

/**
 * OCR preprocessing on its own (EXIF orientation, grey, faded contrast stretched, small images
 * enlarged towards ~300 DPI, white border, two-tone pages thresholded), an image file in, a PGM
 * (grey) or PBM (one bit a pixel) out. Loaded on first use: the package
 * index exports this module, and sharp should not load in processes that never see an image.
 */
export async function prepareForOcr(image: Buffer): Promise<Buffer> {
  const { prepareForOcr: prepare } = await import('./prepare-image.js');
  return prepare(image);
}
