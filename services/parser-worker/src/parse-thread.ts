import { serveThreadTasks } from '@gleaner/platform';
import { createOcrEngine, parseDocument, type OcrEngine, type OutputFormat } from '@gleaner/document-extract';

export interface ParseTask {
  bytes: Uint8Array;
  declaredType: string;
  output: OutputFormat;
}

export interface ParseTaskResult {
  kind: string;
  text: string;
  pages: number;
  notes: string[];
  /** Pages and images read with OCR, for `gleaner_ocr_pages_total` (counted in the main thread's registry). */
  ocrPages: number;
}

/**
 * One OCR worker per parse thread, created when a document first needs it (most never do) and
 * closed when that document is done: tesseract's WebAssembly heap grows to the largest page it
 * has read and never shrinks, and between documents that memory (~100 MB after an A4 scan) is
 * better left to the next one, whose photo is being decoded or whose pages are being rendered.
 * Starting a worker costs ~0.5 s, once per OCR'd document.
 */
let engine: Promise<OcrEngine> | null = null;
const lazyOcr: OcrEngine = {
  async recognize(image, options) {
    const ready = (engine ??= createOcrEngine({ workers: 1 }));
    return (await ready).recognize(image, options);
  },
  async close() {
    const closing = engine;
    engine = null;
    // A worker that failed to start has nothing to close.
    if (closing) await closing.then((ocr) => ocr.close()).catch(() => undefined);
  },
};

serveThreadTasks<ParseTask, ParseTaskResult>(async (task, reportProgress) => {
  try {
    const result = await parseDocument(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength), {
      declaredType: task.declaredType,
      output: task.output,
      ocr: lazyOcr,
      onProgress: (pagesDone, pagesTotal) => reportProgress({ pagesDone, pagesTotal }),
    });
    return { kind: result.kind, text: result.text, pages: result.pages, notes: result.notes, ocrPages: result.ocrPages };
  } finally {
    await lazyOcr.close();
  }
});
