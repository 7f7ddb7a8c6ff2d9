import v8 from 'node:v8';
import { ThreadPool } from '@gleaner/platform';
import type { OcrEngine } from '@gleaner/document-extract';
// The OCR entry alone: the main thread needs no PDF, Office or image readers.
import { createLazyOcrEngine, type OcrWorkerEvent } from '@gleaner/document-extract/ocr';

/** What a parse thread asks the main thread for: one page image read by OCR. */
export interface OcrRequest {
  image: Uint8Array;
  dpi?: number;
}
export type OcrReading = Awaited<ReturnType<OcrEngine['recognize']>>;

/**
 * By default V8 lets a thread's young generation grow to several 16 MB semi-spaces, and keeps
 * them: pdf.js fills them on every long document. Capped at 6 MB, the corpus's PDFs peaked 40-80
 * MB lower (one thread: 390-396 against 431-445 MB for the process; two, TAMReview's OCR beside
 * freeculture.pdf: 596 against 678 MB), and freeculture.pdf (352 pages) parsed as fast.
 */
const PARSE_THREAD_YOUNG_GENERATION_MB = 6;

/**
 * The OCR pages a job keeps in flight (rendered, waiting for or in OCR; extract-pdf.ts adds one
 * being prepared): its share of the process's OCR workers when every parse thread is busy, at
 * least one. Given all the workers each, two scanned PDFs at once held six rendered pages for two
 * workers: the benchmark peaked at 652-666 MB against 632-634 MB with the share (three runs
 * each), while a lone 23-page scan took 2-4 % longer with it (44-46 s against 46-47 s).
 */
export const ocrShare = (ocrWorkers: number, parseThreads: number): number => Math.max(1, Math.floor(ocrWorkers / parseThreads));

/** OCR pages a tesseract worker reads before it is replaced (tesseract.js advises recycling; ~0.5 s each time). */
const OCR_RECYCLE_PAGES = 100;
const OCR_IDLE_MS = 60_000;

/**
 * A tesseract worker that read a grey image larger than this (a PGM of 4 MP and more: photos, grey
 * pages) is replaced after it unless the next page waiting is as large. Its heap grows 8-9 bytes a
 * pixel (77-84 MB for an A4 page at 300 DPI, ~110 MB for the corpus's 10 MP photo, against 24-60
 * MB for a page thresholded to one bit a pixel) and would keep that size while it reads small
 * pages: the corpora's 503-525 MB peak was redp5110's one-bit pages read by the worker the HEIC
 * photo had grown, beside a run of office files. Over both corpora, same host and hour: 453-470 MB
 * (four runs) against 460-525 MB (four); a fresh worker costs ~0.4 s.
 */
const OCR_RECYCLE_IMAGE_BYTES = 4 * 1024 * 1024;

export interface SharedOcrOptions {
  workers: number;
  /**
   * PARSER_MEMORY_MARK_MB: above this resident size the process reads one OCR page at a time and
   * stops OCR workers as soon as they are idle; 0: no mark.
   */
  memoryMarkMb: number;
  onWorkerEvent?: (event: OcrWorkerEvent) => void;
}

/**
 * The process's one OCR pool, started when a page first needs it: a worker's heap grows to the
 * largest page it reads and never shrinks, so workers are replaced every OCR_RECYCLE_PAGES pages
 * and stopped after OCR_IDLE_MS without work (memory back between bursts), or at once above the
 * memory mark. Two workers reading pages beside a second job are most of the process's peaks
 * (docs/design-notes.md): the mark trades OCR throughput for a lower peak where memory is tight.
 */
export function createSharedOcrEngine({ workers, memoryMarkMb, onWorkerEvent }: SharedOcrOptions): OcrEngine {
  const markBytes = memoryMarkMb * 1024 * 1024;
  return createLazyOcrEngine({
    workers,
    recycleAfterJobs: OCR_RECYCLE_PAGES,
    recycleAfterImageBytes: OCR_RECYCLE_IMAGE_BYTES,
    idleTimeoutMs: OCR_IDLE_MS,
    onWorkerEvent,
    overMemoryMark: markBytes > 0 ? () => process.memoryUsage.rss() > markBytes : undefined,
  });
}

/**
 * WebAssembly is compiled in this process by each tesseract.js worker as it starts and by each HEIC
 * decoder thread (libheif). V8 recompiles a module's hot functions with its optimising compiler on
 * as many background tasks as it may, each holding its compile memory at once: the HEIC thread's
 * compile memory peaked at 36-49 MB. One task at a time (a process-wide V8 setting, read when a
 * compilation starts): 26 MB, the thread 67-70 MB above its start instead of 85-88 MB, a fresh
 * tesseract.js worker 52-53 MB instead of 57-58 MB, and a first page read as fast (4.8-4.9 s
 * against 4.9-5.1 s), on Node 20 (Node 24 holds less either way: the thread 64-68 MB against 73-74).
 */
function compileWebAssemblyOneTaskAtATime(): void {
  v8.setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/**
 * The threads parse jobs run in, one per concurrent job. Their OCR is served by `ocr`, one pool
 * of tesseract workers owned by the main thread (tesseract.js runs each worker in a thread of
 * its own, so the main thread only passes images along): pages of every job share it, and the
 * pages of a job that ends or runs out of time leave its queue.
 */
export function createParsePool(size: number, ocr: OcrEngine): ThreadPool {
  compileWebAssemblyOneTaskAtATime();
  return new ThreadPool({
    entry: new URL('./parse-thread.ts', import.meta.url),
    size,
    resourceLimits: { maxOldGenerationSizeMb: 1536, maxYoungGenerationSizeMb: PARSE_THREAD_YOUNG_GENERATION_MB },
    host: (request, signal) => {
      const { image, dpi } = request as OcrRequest;
      // The image came from the parse thread, which gave it up: it moves on to the OCR worker as it is.
      return ocr.recognize(Buffer.from(image.buffer, image.byteOffset, image.byteLength), { dpi, signal, transfer: true });
    },
  });
}
