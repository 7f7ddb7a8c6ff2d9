import { ThreadPool } from '@gleaner/platform';
import type { OcrEngine } from '@gleaner/document-extract';

/** What a parse thread asks the main thread for: one page image read by OCR. */
export interface OcrRequest {
  image: Uint8Array;
  dpi?: number;
}
export type OcrReading = Awaited<ReturnType<OcrEngine['recognize']>>;

/**
 * The threads parse jobs run in, one per concurrent job. Their OCR is served by `ocr`, one pool
 * of tesseract workers owned by the main thread (tesseract.js runs each worker in a thread of
 * its own, so the main thread only passes images along): pages of every job share it, and the
 * pages of a job that ends or runs out of time leave its queue. The benchmark measures the
 * service's memory through this same pool.
 */
export function createParsePool(size: number, ocr: OcrEngine): ThreadPool {
  return new ThreadPool({
    entry: new URL('./parse-thread.ts', import.meta.url),
    size,
    resourceLimits: { maxOldGenerationSizeMb: 1536 },
    host: (request, signal) => {
      const { image, dpi } = request as OcrRequest;
      return ocr.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), { dpi, signal });
    },
  });
}
