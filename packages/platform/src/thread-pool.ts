import { Worker, parentPort, type ResourceLimits } from 'node:worker_threads';
import os from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { threadEntryModule } from './thread-entry-bundle.js';

/** Thrown when a task exceeds its time budget; the thread running it is terminated and replaced. */
export class TaskTimeoutError extends Error {
  constructor(readonly budgetMs: number) {
    super(`task exceeded its time budget of ${budgetMs} ms`);
    this.name = 'TaskTimeoutError';
  }
}

/** An error thrown inside a thread, carried back with its name, message and own fields. */
export class ThreadTaskError extends Error {
  constructor(
    readonly remoteName: string,
    message: string,
    readonly fields: Record<string, unknown>,
  ) {
    super(message);
    this.name = remoteName;
  }
}

interface TaskMessage { id: number; input: unknown }
/** The first message a thread gets (thread-boot.mjs): the module to run. */
interface LoadMessage { load: string }
type ResultMessage =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: { name: string; message: string; fields: Record<string, unknown> } }
  | { id: number; progress: unknown };
/** A thread whose entry module has loaded and serves tasks. */
interface ReadyMessage { ready: true }
/** A thread asking the pool's owner for a service (see ThreadPoolOptions.host). */
interface HostCallMessage { hostCall: number; request: unknown }
type HostReplyMessage = { hostReply: number; ok: true; value: unknown } | { hostReply: number; ok: false; error: { name: string; message: string } };

interface PendingTask {
  id: number;
  input: unknown;
  /** Whose work it is (an account), for ThreadPoolOptions.maxThreadsPerOwner. */
  owner?: string;
  timeoutMs: number;
  onProgress?: (p: unknown) => void;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: PendingTask | null;
  timer: NodeJS.Timeout | null;
  /**
   * Set once the thread's entry module has loaded (its `serveThreadTasks` says so). Tasks go only
   * to ready threads, so loading a fresh thread (up to seconds: jsdom, pdf.js) is not charged to
   * the budget of the task it would get, as it was for the task after every timeout.
   */
  ready: boolean;
  /** Aborted when the slot's task ends or its thread is replaced: host calls made for it are moot. */
  hostCalls: AbortController;
}

export interface ThreadPoolOptions {
  /** file URL of a module (TypeScript or JavaScript) that calls `serveThreadTasks`. */
  entry: URL;
  size?: number;
  resourceLimits?: ResourceLimits;
  /**
   * Serves what threads ask for with `callHost`: a resource the owner keeps once for all threads
   * (the parser's OCR workers). `signal` aborts when the task that asked ends or its thread dies.
   */
  host?: (request: unknown, signal: AbortSignal) => Promise<unknown>;
  /**
   * Threads the tasks of one owner (see `run`) may hold at once; their other tasks wait while
   * another owner's take the free threads. Without it, tasks are served in arrival order.
   */
  maxThreadsPerOwner?: number;
}

/**
 * Options a thread does not inherit, each with its value: preloads (`--import tsx`, a test's
 * preload), and the main script's own (`-e`, `--input-type`, which a thread refuses).
 */
const NOT_FOR_THREADS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--eval', '-e', '--print', '-p', '--input-type']);

/**
 * The process's options for the threads it starts (these pools', tesseract.js's). A thread would
 * otherwise inherit `--import tsx` and start tsx and its hooks thread, although the code it runs
 * is JavaScript (ours bundled, see thread-entry-bundle.ts): ~9 MB a thread, a hooks thread more
 * where it registers tsx itself.
 */
export const threadExecArgv: readonly string[] = process.execArgv.filter((arg, i, all) => {
  const previous = all[i - 1];
  if (previous !== undefined && NOT_FOR_THREADS.has(previous)) return false;
  return !NOT_FOR_THREADS.has(arg.split('=', 1)[0]);
});

/**
 * Whether `view` has its ArrayBuffer to itself, so that the buffer may be listed to move to another
 * thread: a small Buffer is a slice of Node's shared pool, which must not move with it.
 */
export const spansItsBuffer = (view: ArrayBufferView): boolean => view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;

/**
 * A fixed pool of worker threads for CPU-heavy work (HTML parsing, PDF, OCR preprocessing), so the
 * event loop of a BullMQ worker stays free to renew job locks. Each task has a time budget, counted
 * from when a loaded thread takes it: a thread that overruns it is terminated (the only way to
 * stop synchronous work) and replaced.
 */
export class ThreadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: PendingTask[] = [];
  private nextId = 1;
  private closed = false;
  private readonly loadWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  /** The threads' code (see thread-entry-bundle.ts), sent to each thread as it starts. */
  private readonly entryModule: Promise<string>;
  /** Set when the entry could not be built: no thread can ever serve, so none is started again. */
  private buildError: Error | null = null;

  constructor(private readonly options: ThreadPoolOptions) {
    this.entryModule = threadEntryModule(options.entry);
    this.entryModule.catch((err: Error) => this.failBuild(err));
    const size = options.size ?? Math.max(1, os.availableParallelism());
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /**
   * Runs `input` on a free thread. `signal` lets the caller stop the task early (its own phase
   * budgets, say): a queued task is dropped, a running one's thread is terminated and replaced;
   * either way the promise rejects with the signal's reason. `owner` (an account) counts the task
   * against that owner's share of the threads (maxThreadsPerOwner).
   */
  run<I, O>(input: I, timeoutMs: number, onProgress?: (p: unknown) => void, signal?: AbortSignal, owner?: string): Promise<O> {
    if (this.closed) return Promise.reject(new Error('thread pool is closed'));
    if (this.buildError) return Promise.reject(this.buildError);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<O>((resolve, reject) => {
      const task: PendingTask = { id: this.nextId++, input, owner, timeoutMs, onProgress, resolve: resolve as (v: unknown) => void, reject };
      if (signal) {
        const abort = () => this.cancel(task, signal.reason);
        signal.addEventListener('abort', abort, { once: true });
        task.resolve = (v) => {
          signal.removeEventListener('abort', abort);
          resolve(v as O);
        };
        task.reject = (e) => {
          signal.removeEventListener('abort', abort);
          reject(e);
        };
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  /**
   * Resolves once every thread has loaded its entry module; rejects with the error of a thread
   * that died while loading. Services wait for it before taking jobs, so a worker that says it is
   * ready can serve at once (a fresh thread loads for seconds) and a broken entry fails the boot.
   */
  whenLoaded(): Promise<void> {
    if (this.buildError) return Promise.reject(this.buildError);
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.loadWaiters.push({ resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('thread pool is closed'));
    for (const waiter of this.loadWaiters.splice(0)) waiter.reject(new Error('thread pool is closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private cancel(task: PendingTask, reason: unknown): void {
    const queued = this.queue.indexOf(task);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      task.reject(reason instanceof Error ? reason : new Error(String(reason)));
      return;
    }
    const slot = this.slots.find((s) => s.busy === task);
    if (slot) this.replace(slot, reason instanceof Error ? reason : new Error(String(reason)));
  }

  private spawn(): Slot {
    const worker = new Worker(new URL('./thread-boot.mjs', import.meta.url), {
      execArgv: [...threadExecArgv],
      resourceLimits: this.options.resourceLimits,
    });
    this.entryModule.then(
      (load) => worker.postMessage({ load } satisfies LoadMessage),
      () => undefined,
    );
    const slot: Slot = { worker, busy: null, timer: null, ready: false, hostCalls: new AbortController() };
    worker.on('message', (msg: ResultMessage | HostCallMessage | ReadyMessage) => {
      if ('ready' in msg) this.onReady(slot);
      else if ('hostCall' in msg) this.onHostCall(slot, msg);
      else this.onMessage(slot, msg);
    });
    worker.on('error', (err) => this.onCrash(slot, err));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.onCrash(slot, new Error(`worker thread exited with code ${code}`));
    });
    return slot;
  }

  /** The first queued task whose owner is below its share of the threads, taken off the queue. */
  private nextTask(): PendingTask | undefined {
    const max = this.options.maxThreadsPerOwner;
    const index = max === undefined ? 0 : this.queue.findIndex((t) => t.owner === undefined || this.slots.filter((s) => s.busy?.owner === t.owner).length < max);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy || !slot.ready) continue;
      const task = this.nextTask();
      if (!task) return;
      slot.busy = task;
      slot.hostCalls = new AbortController();
      slot.timer = setTimeout(() => this.replace(slot, new TaskTimeoutError(task.timeoutMs)), task.timeoutMs);
      slot.worker.postMessage({ id: task.id, input: task.input } satisfies TaskMessage);
    }
  }

  private failBuild(err: Error): void {
    this.buildError = new Error(`the thread entry ${this.options.entry.href} could not be built: ${err.message}`);
    for (const task of this.queue.splice(0)) task.reject(this.buildError);
    for (const waiter of this.loadWaiters.splice(0)) waiter.reject(this.buildError);
    for (const slot of this.slots.splice(0)) void slot.worker.terminate();
  }

  private onReady(slot: Slot): void {
    slot.ready = true;
    if (this.slots.every((s) => s.ready)) for (const waiter of this.loadWaiters.splice(0)) waiter.resolve();
    this.dispatch();
  }

  private onMessage(slot: Slot, msg: ResultMessage): void {
    const task = slot.busy;
    if (!task || task.id !== msg.id) return;
    if ('progress' in msg) {
      task.onProgress?.(msg.progress);
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.busy = null;
    slot.timer = null;
    slot.hostCalls.abort();
    if (msg.ok) task.resolve(msg.output);
    else task.reject(new ThreadTaskError(msg.error.name, msg.error.message, msg.error.fields));
    this.dispatch();
  }

  private onHostCall(slot: Slot, msg: HostCallMessage): void {
    const reply = (answer: HostReplyMessage) => {
      // A replaced thread is gone; its answer has nobody to go to.
      if (this.slots.includes(slot)) slot.worker.postMessage(answer);
    };
    const { host } = this.options;
    if (!host) {
      reply({ hostReply: msg.hostCall, ok: false, error: { name: 'Error', message: 'this thread pool serves no host calls' } });
      return;
    }
    const { signal } = slot.hostCalls;
    Promise.resolve()
      .then(() => host(msg.request, signal))
      .then(
      (value) => reply({ hostReply: msg.hostCall, ok: true, value }),
      (err: Error) => reply({ hostReply: msg.hostCall, ok: false, error: { name: err?.name ?? 'Error', message: err?.message ?? String(err) } }),
    );
  }

  private onCrash(slot: Slot, err: Error): void {
    // A thread that dies while loading its entry (a module that throws) has no task yet: the next
    // queued one gets the error, as it would have had it been sent to that thread, not a wait.
    if (!slot.ready && !slot.busy) {
      this.queue.shift()?.reject(err);
      for (const waiter of this.loadWaiters.splice(0)) waiter.reject(err);
    }
    this.replace(slot, err);
  }

  /** Fails the slot's task with `err`, terminates its thread and starts a fresh one. */
  private replace(slot: Slot, err: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    if (slot.timer) clearTimeout(slot.timer);
    const task = slot.busy;
    slot.busy = null;
    slot.hostCalls.abort();
    this.slots.splice(index, 1);
    void slot.worker.terminate();
    if (!this.closed) this.slots.push(this.spawn());
    task?.reject(err);
    this.dispatch();
  }
}

/** Called by a thread entry module: serves tasks posted by the pool with `handler`. */
export function serveThreadTasks<I, O>(handler: (input: I, reportProgress: (p: unknown) => void) => Promise<O> | O): void {
  const port = parentPort;
  if (!port) throw new Error('serveThreadTasks must run inside a worker thread');
  port.on('message', async (msg: TaskMessage | HostReplyMessage) => {
    if ('hostReply' in msg) return settleHostCall(msg);
    try {
      const output = await handler(msg.input as I, (progress) => port.postMessage({ id: msg.id, progress }));
      port.postMessage({ id: msg.id, ok: true, output });
    } catch (err) {
      const e = err as Error & Record<string, unknown>;
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(e)) {
        if (v === null || ['string', 'number', 'boolean'].includes(typeof v) || Array.isArray(v)) fields[k] = v;
      }
      port.postMessage({ id: msg.id, ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), fields } });
    }
  });
  // The entry module has loaded (this runs in its body, after its imports): tasks may come.
  port.postMessage({ ready: true } satisfies ReadyMessage);
}

let fullCollection: (() => void) | undefined;

/**
 * Runs a full garbage collection of this thread's heap when the memory V8 counts outside it
 * (ArrayBuffers, WebAssembly and native memory) is above `thresholdBytes`; says whether it did.
 * Large buffers that live through two minor collections (a page image waiting for OCR) die in the
 * old generation, which V8 collects by itself only once some 64 MB more has been allocated outside
 * the heap: a thread could keep that much dead memory until its next heavy task. Their memory goes
 * back to the system just after the collection (V8 frees it on its sweeper threads).
 */
export function releaseDeadBuffers(thresholdBytes: number): boolean {
  if (v8.getHeapStatistics().external_memory <= thresholdBytes) return false;
  if (!fullCollection) {
    // Node offers a full collection only as the `gc` global of --expose-gc; the flag may be set
    // while running, and a context created after that has the function (it collects the whole
    // thread's heap, not just that context's).
    v8.setFlagsFromString('--expose-gc');
    fullCollection = runInNewContext('gc') as () => void;
  }
  fullCollection();
  return true;
}

const hostCalls = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let lastHostCall = 0;

function settleHostCall(msg: HostReplyMessage): void {
  const call = hostCalls.get(msg.hostReply);
  if (!call) return;
  hostCalls.delete(msg.hostReply);
  if (msg.ok) {
    call.resolve(msg.value);
  } else {
    const error = new Error(msg.error.message);
    error.name = msg.error.name;
    call.reject(error);
  }
}

/**
 * From inside a thread served by `serveThreadTasks`: asks the pool's owner (its `host` option)
 * and resolves with the answer. `request` is copied (structured clone), except the buffers listed
 * in `transfer`, which move to the owner, or are copied too when their memory cannot move (since
 * Node 22 a native addon's buffer, such as sharp's output, cannot).
 */
export function callHost<Request, Response>(request: Request, transfer: Transferable[] = []): Promise<Response> {
  const port = parentPort;
  if (!port) return Promise.reject(new Error('callHost must run inside a worker thread'));
  const id = ++lastHostCall;
  return new Promise<Response>((resolve, reject) => {
    hostCalls.set(id, { resolve: resolve as (value: unknown) => void, reject });
    const message = { hostCall: id, request } satisfies HostCallMessage;
    try {
      try {
        port.postMessage(message, transfer as never);
      } catch (error) {
        // Nothing was sent (postMessage checks the whole message first): copied this time.
        if (transfer.length === 0 || (error as Error).name !== 'DataCloneError') throw error;
        port.postMessage(message);
      }
    } catch (error) {
      hostCalls.delete(id);
      throw error;
    }
  });
}
