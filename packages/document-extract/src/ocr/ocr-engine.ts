import os from 'node:os';
import { spansItsBuffer, threadExecArgv } from '@gleaner/platform/threads';
import type { OcrEngine } from '../types.js';
import { englishDataPath } from './language-data.js';

export interface OcrEngineOptions {
  /** tesseract.js workers (each about 200 MB); defaults to the number of cores. */
  workers?: number;
  /** A worker is replaced after this many jobs: its WASM heap only grows and its adaptive state drifts. */
  recycleAfterJobs?: number;
  /**
   * A worker is replaced after reading an image file larger than this (bytes), unless the next
   * image waiting is as large: its heap would keep the size that image grew it to for every page
   * after. Meant for uncompressed images (PGM, PBM), whose size follows the pixels tesseract
   * holds. Unset: no limit.
   */
  recycleAfterImageBytes?: number;
  /**
   * A worker idle this long is stopped (and started again on demand): its heap, grown to the
   * largest page it read (~100 MB after an A4 scan), goes back to the system between bursts.
   * Unset: workers stay until recycled or closed.
   */
  idleTimeoutMs?: number;
  /**
   * True while the process holds more memory than it should (the caller's measure): no page then
   * starts beside one being read (pages wait in the queue), and an idle worker stops within a
   * second rather than after `idleTimeoutMs` (its heap keeps the size of the largest page it read).
   */
  overMemoryMark?: () => boolean;
  /** createWorker never settles when language data cannot load; this bounds the wait. */
  createTimeoutMs?: number;
  /** Told when a worker starts or stops, and why (for operators' logs). */
  onWorkerEvent?: (event: OcrWorkerEvent) => void;
}

export type OcrWorkerEvent =
  | { type: 'started'; workers: number }
  | { type: 'stopped'; reason: StopReason; jobs: number; workers: number };

/** Why a worker stopped: its job quota, a large image read, idle, a failed job, the pool closing. */
type StopReason = 'quota' | 'large-image' | 'idle' | 'failed' | 'closed';

type Tesseract = typeof import('tesseract.js');
type TesseractWorker = Awaited<ReturnType<Tesseract['createWorker']>>;

interface PoolWorker {
  worker: TesseractWorker;
  jobs: number;
  /** Last `user_defined_dpi` sent, so the parameter is only set when it changes. */
  dpi: number;
  /** Set while the worker is idle and an idle timeout is configured. */
  idleTimer?: NodeJS.Timeout;
}

interface Job {
  image: Buffer;
  dpi: number;
  transfer: boolean;
  resolve: (result: { text: string; confidence: number }) => void;
  reject: (error: Error) => void;
}

/** Where tesseract.js writes the language data in the worker's file system (its working directory). */
const TRAINED_DATA = 'eng.traineddata';

/** Used when the caller gives no resolution: what pages are rendered and scans are scaled to. */
const DEFAULT_DPI = 300;

/** How often an idle worker checks whether to stop. */
const IDLE_CHECK_MS = 1000;

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
    // Handed to the worker thread by our patch of tesseract.js (patches/): no `--import tsx` there.
    workerThreadOptions: { execArgv: [...threadExecArgv] },
  } as Partial<Tesseract.WorkerOptions>);
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
  // Tesseract's own messages ("Detected 100 diacritics", "Estimating resolution...") go to the
  // worker's stderr, in the middle of our JSON logs; its debug file (in the WASM file system)
  // takes them instead.
  await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, user_defined_dpi: String(DEFAULT_DPI), debug_file: '/dev/null' });
  // tesseract.js leaves the unpacked model (4 MB) in the worker's in-memory file system after
  // tesseract has read it; nothing reads it again (the worker is never re-initialised). With the
  // 5 MB best_int model used before, two workers held 13 MB less after a page each.
  await worker.FS('unlink', [TRAINED_DATA]);
  return worker;
}

/**
 * A pool of tesseract.js workers (LSTM only, English, automatic page segmentation) with a FIFO
 * queue. Workers start on demand up to `workers`, the first one at once so that a broken
 * installation fails here rather than on the first page. A worker that fails a job is discarded;
 * one that has done `recycleAfterJobs` jobs or read an image over `recycleAfterImageBytes` is
 * replaced, one idle for `idleTimeoutMs` stopped
 * (sooner, and pages read one at a time, while `overMemoryMark` says so).
 */
export async function createOcrEngine(options: OcrEngineOptions = {}): Promise<OcrEngine> {
  const size = Math.max(1, Math.floor(options.workers ?? os.availableParallelism()));
  const recycleAfter = Math.max(1, options.recycleAfterJobs ?? 200);
  const recycleAfterImageBytes = options.recycleAfterImageBytes ?? Number.POSITIVE_INFINITY;
  const timeoutMs = options.createTimeoutMs ?? 30_000;
  const report = options.onWorkerEvent ?? (() => undefined);

  const idle: PoolWorker[] = [];
  const queue: Job[] = [];
  const running = new Set<Promise<void>>();
  let starting = 0;
  let busy = 0;
  let closed = false;

  const live = () => idle.length + busy + starting;

  function stop(pooled: PoolWorker, reason: StopReason): Promise<void> {
    clearInterval(pooled.idleTimer);
    report({ type: 'stopped', reason, jobs: pooled.jobs, workers: live() });
    return pooled.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }

  function rest(pooled: PoolWorker): void {
    idle.push(pooled);
    const idleTimeoutMs = options.idleTimeoutMs;
    const overMark = options.overMemoryMark;
    if (idleTimeoutMs === undefined && !overMark) return;
    const restingSince = Date.now();
    // Without a mark the timer fires once, at the idle timeout; with one, every second until either says stop.
    pooled.idleTimer = setInterval(
      () => {
        const timedOut = idleTimeoutMs !== undefined && (!overMark || Date.now() - restingSince >= idleTimeoutMs);
        // Over the mark the pool shrinks to the worker reading: an idle one only waits, with nothing
        // queued or with pages queued behind that one (a worker that finishes takes the next page
        // before this check runs).
        if (!timedOut && !overMark?.()) return;
        clearInterval(pooled.idleTimer);
        const at = idle.indexOf(pooled);
        if (at < 0 || closed) return;
        idle.splice(at, 1);
        void stop(pooled, 'idle');
      },
      overMark ? Math.min(IDLE_CHECK_MS, idleTimeoutMs ?? IDLE_CHECK_MS) : idleTimeoutMs,
    );
    // An idle OCR worker is no reason for the process to stay up.
    pooled.idleTimer.unref();
  }

  function take(): PoolWorker | undefined {
    const pooled = idle.pop();
    if (pooled) clearInterval(pooled.idleTimer);
    return pooled;
  }

  async function begin(): Promise<PoolWorker> {
    const worker = await startWorker(timeoutMs);
    const pooled = { worker, jobs: 0, dpi: DEFAULT_DPI };
    report({ type: 'started', workers: live() });
    return pooled;
  }

  function dispatch(): void {
    while (!closed && queue.length > 0) {
      // Over the memory mark, pages are read one at a time: the next one starts when this one ends.
      if (busy + starting > 0 && options.overMemoryMark?.()) return;
      const pooled = take();
      if (pooled) {
        track(run(pooled, queue.shift()!));
      } else if (live() < size) {
        starting++;
        track(
          begin().then(
            (started) => {
              starting--;
              if (closed) return void stop(started, 'closed');
              rest(started);
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
    // Read now: a moved image is empty once sent.
    const imageBytes = job.image.byteLength;
    try {
      if (pooled.dpi !== job.dpi) {
        await pooled.worker.setParameters({ user_defined_dpi: String(job.dpi) });
        pooled.dpi = job.dpi;
      }
      // tesseract.js copies a Buffer before sending it to its thread, and moves a plain Uint8Array
      // that spans its ArrayBuffer there as it is (patches/tesseract.js@7.0.0.patch).
      const image = job.transfer && spansItsBuffer(job.image) ? new Uint8Array(job.image.buffer) : job.image;
      const { data } = await pooled.worker.recognize(image as Buffer);
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
    if (closed) await stop(pooled, 'closed');
    else if (!healthy) await stop(pooled, 'failed');
    else if (pooled.jobs >= recycleAfter) await stop(pooled, 'quota');
    // A worker grown by a large image goes on only to another one (the next page of a grey scan).
    else if (imageBytes > recycleAfterImageBytes && (queue[0]?.image.byteLength ?? 0) <= recycleAfterImageBytes) await stop(pooled, 'large-image');
    else rest(pooled);
    dispatch();
  }

  starting++;
  try {
    rest(await begin());
  } finally {
    starting--;
  }

  return {
    parallelism: size,
    recognize(image, opts) {
      if (closed) return Promise.reject(new Error('the OCR engine is closed'));
      if (opts?.signal?.aborted) return Promise.reject(new Error('the OCR job was cancelled'));
      const dpi = Math.round(Math.min(1200, Math.max(70, opts?.dpi ?? DEFAULT_DPI)));
      const signal = opts?.signal;
      return new Promise((resolve, reject) => {
        // A job nobody waits for any more (its document failed or ran out of time) leaves the queue.
        const cancel = () => {
          const at = queue.indexOf(job);
          if (at >= 0) queue.splice(at, 1)[0].reject(new Error('the OCR job was cancelled'));
        };
        const settled = () => signal?.removeEventListener('abort', cancel);
        const job: Job = {
          image,
          dpi,
          transfer: opts?.transfer === true,
          resolve: (result) => {
            settled();
            resolve(result);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
        };
        signal?.addEventListener('abort', cancel, { once: true });
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the OCR engine is closed'));
      // Jobs in progress finish (and terminate their workers); then the idle ones go.
      while (running.size > 0) await Promise.allSettled([...running]);
      await Promise.all(idle.splice(0).map((p) => stop(p, 'closed')));
    },
  };
}

/**
 * An engine whose pool starts on first use: most documents need no OCR, and a worker costs
 * ~0.5 s and ~100 MB. A pool that failed to start is tried again by the next job.
 */
export function createLazyOcrEngine(options: OcrEngineOptions = {}): OcrEngine {
  let engine: Promise<OcrEngine> | null = null;
  let closed = false;
  const started = () => {
    if (closed) return Promise.reject(new Error('the OCR engine is closed'));
    engine ??= createOcrEngine(options).catch((error: unknown) => {
      engine = null;
      throw error;
    });
    return engine;
  };
  return {
    parallelism: Math.max(1, Math.floor(options.workers ?? os.availableParallelism())),
    recognize: async (image, opts) => (await started()).recognize(image, opts),
    async close() {
      closed = true;
      const closing = engine;
      engine = null;
      if (closing) await closing.then((ocr) => ocr.close()).catch(() => undefined);
    },
  };
}
