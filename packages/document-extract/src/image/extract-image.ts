import { DocumentError } from '../errors.js';
import { decodeGray } from '../ocr/prepare-image.js';
import { recognizeUpright } from '../ocr/recognize-upright.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { imagePages, type ImageKind } from './image-pages.js';

function asImageError(error: unknown): DocumentError {
  if (error instanceof DocumentError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) return new DocumentError('400-001', 'Image too large', ['the image is larger than the pixel limit']);
  return new DocumentError('400-001', 'Invalid image file', [`the image could not be decoded: ${message.split('\n')[0].slice(0, 200)}`]);
}

const aborted = () => new DocumentError('500-001', 'Processing error', ['the time budget ran out']);

/**
 * Images to text by OCR: one entry per image page (every page of a multi-page TIFF), each turned
 * upright and deskewed before it is read. Decoding failures are the file's fault (400-001); OCR
 * failures are ours (left to the caller, which reports them as 500-001).
 */
export async function extractImage(bytes: Buffer, kind: ImageKind, opts: ExtractOptions): Promise<ExtractedDocument> {
  const ocr = opts.ocr;
  if (!ocr) throw new DocumentError('500-001', 'Processing error', ['OCR is not available in this process']);
  let pages;
  try {
    pages = await imagePages(bytes, kind);
  } catch (error) {
    throw asImageError(error);
  }
  const texts: string[] = [];
  const notes: string[] = [];
  for (let i = 0; i < pages.length; i++) {
    if (opts.signal?.aborted) throw aborted();
    let raster;
    try {
      raster = await decodeGray(pages[i].open());
    } catch (error) {
      // Corrupt data is often only found while decoding the pixels.
      throw asImageError(error);
    }
    const result = await recognizeUpright(raster, ocr, pages[i].dpi);
    texts.push(result.text.replace(/[ \t]+$/gm, '').trim());
    const tries = result.attempts.map((a) => `${a.rotation}° ${a.confidence}%`).join(', ');
    notes.push(`page ${i + 1}: OCR at ${tries}${result.attempts.length > 1 ? `; kept ${result.rotation}°` : ''}`);
    opts.onProgress?.(i + 1, pages.length);
  }
  return { kind, pages: texts, notes, ocrPages: texts.length };
}
