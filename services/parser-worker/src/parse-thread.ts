// The thread-pool module alone: the package's index would load Redis, logging and metrics
// clients into every thread (~16 MB each, unused here).
import { callHost, releaseDeadBuffers, serveThreadTasks, spansItsBuffer } from '@gleaner/platform/threads';
import { parseDocument, type OcrEngine, type OutputFormat } from '@gleaner/document-extract';
import type { OcrReading, OcrRequest } from './parse-pool.js';

export interface ParseTask {
  bytes: Uint8Array;
  declaredType: string;
  output: OutputFormat;
  /** This job's share of the process's OCR workers (ocrShare): pages it keeps in flight for them. */
  ocrParallelism: number;
}

export interface ParseTaskResult {
  kind: string;
  text: string;
  pages: number;
  notes: string[];
  /** Pages and images read with OCR, for `gleaner_ocr_pages_total` (counted in the main thread's registry). */
  ocrPages: number;
  /** Text files: the decoder used (utf-8, utf-16le, utf-16be, windows-1252). */
  encoding?: string;
}

/** Progress messages of a parse task: the detected kind as soon as it is known, then pages. */
export type ParseProgress = { kind: string } | { pagesDone: number; pagesTotal: number };

/**
 * OCR is not done in this thread: pages go to the process's one pool of tesseract workers (see
 * parse-pool.ts), sized to the cores and shared by every job, so a lone scanned document gets
 * every core and two at once share them, instead of one worker per job whatever the machine.
 */
function sharedOcr(parallelism: number): OcrEngine {
  return {
    parallelism,
    recognize: (image, options) => callHost<OcrRequest, OcrReading>({ image, dpi: options?.dpi }, options?.transfer && spansItsBuffer(image) ? [image.buffer] : []),
    // The pool belongs to the process; the task's outstanding pages are dropped when it ends.
    close: async () => undefined,
  };
}

/**
 * A job that rendered or decoded images (scans, photos, PDF pages: 9-35 MB each) leaves up to ~95
 * MB of them dead in this thread; smaller jobs leave a few MB. Collected after the large ones (a
 * full collection took 20-35 ms after such a job, which itself takes seconds), the benchmark's
 * peak for the whole process was 594-604 MB against 632-652 MB (three runs each; the timing of
 * the two jobs in flight moves it by ±25 MB).
 */
const DEAD_BUFFERS_LIMIT_BYTES = 32 * 1024 * 1024;

serveThreadTasks<ParseTask, ParseTaskResult>(async (task, reportProgress: (progress: ParseProgress) => void) => {
  const result = await parseDocument(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength), {
    declaredType: task.declaredType,
    output: task.output,
    ocr: sharedOcr(task.ocrParallelism),
    onKindDetected: (kind) => reportProgress({ kind }),
    onProgress: (pagesDone, pagesTotal) => reportProgress({ pagesDone, pagesTotal }),
  }).finally(() => releaseDeadBuffers(DEAD_BUFFERS_LIMIT_BYTES));
  return { kind: result.kind, text: result.text, pages: result.pages, notes: result.notes, ocrPages: result.ocrPages, ...(result.encoding ? { encoding: result.encoding } : {}) };
});
