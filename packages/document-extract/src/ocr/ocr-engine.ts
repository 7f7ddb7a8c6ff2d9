import os from 'node:os';
import type { OcrEngine } from '../types.js';
import { englishDataPath } from './language-data.js';

export interface OcrEngineOptions {
  /** tesseract.js workers (each about 200 MB); defaults to the number of cores. */
  workers?: number;
  /** A worker is replaced after this many jobs: its WASM heap only grows and its adaptive state drifts. */
  recycleAfterJobs?: number;
  /** createWorker never settles when language data cannot load; this bounds the wait. */
  createTimeoutMs?: number;
}

type Tesseract = typeof import('tesseract.js');
type TesseractWorker = Awaited<ReturnType<Tesseract['createWorker']>>;

interface PoolWorker {
  worker: TesseractWorker;
  jobs: number;
  /** Last `user_defined_dpi` sent, so the parameter is only set when it changes. */
  dpi: number;
}

interface Job {
  image: Buffer;
  dpi: number;
  resolve: (result: { text: string; confidence: number }) => void;
  reject: (error: Error) => void;
}

/** Used when the caller gives no resolution: what pages are rendered and scans are scaled to. */
const DEFAULT_DPI = 300;

/** A blank 8x8 grey PNG, read after every job (see run). */
const BLANK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAAAAADhZOFXAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADklEQVQI12P4DwUMlDEA98A/wQIf3PYAAAAASUVORK5CYII=',
  'base64',
);

async function startWorker(timeoutMs: number): Promise<TesseractWorker> {
  const { createWorker, OEM, PSM } = await import('tesseract.js');
  let timer: NodeJS.Timeout | undefined;
  const creating = createWorker('eng', OEM.LSTM_ONLY, {
    langPath: englishDataPath(),
    gzip: true,
    // The default cache writes eng.traineddata into the working directory.
    cacheMethod: 'none',
    // Without a handler a worker error is thrown as an uncaught exception; failures still reject the job.
    errorHandler: () => undefined,
  });
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the OCR worker did not start within ${timeoutMs} ms`)), timeoutMs);
  });
  let worker: TesseractWorker;
  try {
    worker = await Promise.race([creating, timeout]);
  } catch (error) {
    // A worker that starts after the deadline would otherwise keep its thread alive.
    creating.then((late) => late.terminate()).catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // tesseract.js defaults to one uniform block (PSM 6), which interleaves the lines of
  // multi-column pages; automatic page segmentation (PSM 3) is what the command line uses.
  await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, user_defined_dpi: String(DEFAULT_DPI) });
  return worker;
}

/**
 * A pool of tesseract.js workers (LSTM only, English, automatic page segmentation) with a FIFO
 * queue. Workers start on demand up to `workers`, the first one at once so that a broken
 * installation fails here rather than on the first page. A worker that fails a job is discarded.
 */
export async function createOcrEngine(options: OcrEngineOptions = {}): Promise<OcrEngine> {
  const size = Math.max(1, Math.floor(options.workers ?? os.availableParallelism()));
  const recycleAfter = Math.max(1, options.recycleAfterJobs ?? 200);
  const timeoutMs = options.createTimeoutMs ?? 30_000;

  const idle: PoolWorker[] = [{ worker: await startWorker(timeoutMs), jobs: 0, dpi: DEFAULT_DPI }];
  const queue: Job[] = [];
  const running = new Set<Promise<void>>();
  let starting = 0;
  let busy = 0;
  let closed = false;

  const live = () => idle.length + busy + starting;

  function dispatch(): void {
    while (!closed && queue.length > 0) {
      const pooled = idle.pop();
      if (pooled) {
        track(run(pooled, queue.shift()!));
      } else if (live() < size) {
        starting++;
        track(
          startWorker(timeoutMs).then(
            (worker) => {
              starting--;
              idle.push({ worker, jobs: 0, dpi: DEFAULT_DPI });
              dispatch();
            },
            (error: Error) => {
              starting--;
              // Nothing else can serve the queue: fail it rather than wait forever.
              if (live() === 0) for (const job of queue.splice(0)) job.reject(error);
            },
          ),
        );
      } else {
        return;
      }
    }
  }

  function track(task: Promise<void>): void {
    running.add(task);
    void task.finally(() => running.delete(task));
  }

  async function run(pooled: PoolWorker, job: Job): Promise<void> {
    busy++;
    let healthy = true;
    try {
      if (pooled.dpi !== job.dpi) {
        await pooled.worker.setParameters({ user_defined_dpi: String(job.dpi) });
        pooled.dpi = job.dpi;
      }
      const { data } = await pooled.worker.recognize(job.image);
      pooled.jobs++;
      job.resolve({ text: data.text, confidence: data.confidence });
      // tesseract.js keeps a page's image and analysis until the next image replaces it, so the
      // next page would be loaded beside it and the WASM heap, which never shrinks, would hold two
      // pages (171 MB instead of 105 MB for A4 at 300 DPI). Reading a blank image releases it (~10 ms).
      await pooled.worker.recognize(BLANK_PNG);
    } catch (error) {
      healthy = false;
      job.reject(error instanceof Error ? error : new Error(String(error)));
    } finally {
      busy--;
    }
    if (closed || !healthy || pooled.jobs >= recycleAfter) await pooled.worker.terminate().catch(() => undefined);
    else idle.push(pooled);
    dispatch();
  }

  return {
    recognize(image, opts) {
      if (closed) return Promise.reject(new Error('the OCR engine is closed'));
      const dpi = Math.round(Math.min(1200, Math.max(70, opts?.dpi ?? DEFAULT_DPI)));
      return new Promise((resolve, reject) => {
        queue.push({ image, dpi, resolve, reject });
        dispatch();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the OCR engine is closed'));
      // Jobs in progress finish (and terminate their workers); then the idle ones go.
      while (running.size > 0) await Promise.allSettled([...running]);
      await Promise.all(idle.splice(0).map((p) => p.worker.terminate().catch(() => undefined)));
    },
  };
}
