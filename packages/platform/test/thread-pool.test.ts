import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { TaskTimeoutError, ThreadPool, ThreadTaskError } from '../src/thread-pool.js';

const pool = new ThreadPool({ entry: new URL('./fixtures/echo-thread.ts', import.meta.url), size: 1 });

afterAll(() => pool.close());

it('runs TypeScript tasks in a thread and reports progress', async () => {
  const progress: unknown[] = [];
  const out = await pool.run<{ op: string; n: number }, number>({ op: 'double', n: 21 }, 5_000, (p) => progress.push(p));
  expect(out).toBe(42);
  expect(progress).toEqual([{ half: 21 }]);
});

it('carries an error thrown in the thread back with its name and fields', async () => {
  const err = await pool.run({ op: 'throw', n: 0 }, 5_000).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ThreadTaskError);
  expect((err as ThreadTaskError).remoteName).toBe('CustomError');
  expect((err as ThreadTaskError).fields.code).toBe('X-1');
});

it('terminates a task over its budget and keeps serving with a fresh thread', async () => {
  const started = Date.now();
  const err = await pool.run({ op: 'spin', n: 0 }, 300).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TaskTimeoutError);
  expect(Date.now() - started).toBeLessThan(3_000);
  expect(await pool.run({ op: 'double', n: 2 }, 5_000)).toBe(4);
});

it('stops a running task when its signal aborts, with the signal reason, and keeps serving', async () => {
  const controller = new AbortController();
  const reason = new Error('phase budget spent');
  setTimeout(() => controller.abort(reason), 200);
  const started = Date.now();
  // The pool's own budget (60 s) is not what ends this spin: the signal is.
  const err = await pool.run({ op: 'spin', n: 0 }, 60_000, undefined, controller.signal).catch((e: unknown) => e);
  expect(err).toBe(reason);
  expect(Date.now() - started).toBeLessThan(3_000);
  expect(await pool.run({ op: 'double', n: 3 }, 5_000)).toBe(6);
});

it('drops a queued task whose signal aborts, and refuses one already aborted', async () => {
  const busy = new AbortController();
  const running = pool.run({ op: 'spin', n: 0 }, 60_000, undefined, busy.signal).catch((e: unknown) => e);
  const queued = new AbortController();
  const waiting = pool.run({ op: 'double', n: 5 }, 5_000, undefined, queued.signal).catch((e: unknown) => e);
  queued.abort(new Error('no longer wanted'));
  expect(await waiting).toEqual(new Error('no longer wanted'));
  busy.abort(new Error('stop spinning'));
  expect(await running).toEqual(new Error('stop spinning'));
  await expect(pool.run({ op: 'double', n: 1 }, 5_000, undefined, AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
  expect(await pool.run({ op: 'double', n: 4 }, 5_000)).toBe(8);
});

it('keeps an owner within its share of the threads: another owner\'s task takes the free one first', async () => {
  const shared = new ThreadPool({ entry: new URL('./fixtures/echo-thread.ts', import.meta.url), size: 2, maxThreadsPerOwner: 1 });
  try {
    await shared.whenLoaded();
    const stop = new AbortController();
    const finished: string[] = [];
    // Owner A queues a long task and two short ones, owner B one short one after them.
    const spinning = shared.run({ op: 'spin', n: 0 }, 60_000, undefined, stop.signal, 'A').catch(() => 'stopped');
    const a1 = shared.run({ op: 'double', n: 1 }, 5_000, undefined, undefined, 'A').then(() => finished.push('A1'));
    const a2 = shared.run({ op: 'double', n: 2 }, 5_000, undefined, undefined, 'A').then(() => finished.push('A2'));
    const b = shared.run({ op: 'double', n: 3 }, 5_000, undefined, undefined, 'B').then(() => finished.push('B'));
    await b;
    // B ran on the second thread although A's tasks came first; A's wait for A's one thread.
    expect(finished).toEqual(['B']);
    stop.abort(new Error('done'));
    expect(await spinning).toBe('stopped');
    await Promise.all([a1, a2]);
    expect(finished).toEqual(['B', 'A1', 'A2']);
  } finally {
    await shared.close();
  }
});

it("does not charge a fresh thread's loading to the budget of the task it takes first", async () => {
  // The thread spends a second loading; the task itself needs a few ms, well inside 300 ms.
  const slow = new ThreadPool({ entry: new URL('./fixtures/slow-start-thread.ts', import.meta.url), size: 1 });
  try {
    expect(await slow.run({ n: 1 }, 300)).toBe(2);
    // The same after a timeout: the replacement thread loads before its first task's budget starts.
    const err = await slow.run({ n: -1 }, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskTimeoutError);
    const started = Date.now();
    expect(await slow.run({ n: 7 }, 300)).toBe(8);
    // The fresh thread did load meanwhile (the second that the 300 ms budget did not have to cover).
    expect(Date.now() - started).toBeGreaterThan(900);
  } finally {
    await slow.close();
  }
});

it('tells when every thread has loaded, so a service takes jobs only once it can serve them', async () => {
  const slow = new ThreadPool({ entry: new URL('./fixtures/slow-start-thread.ts', import.meta.url), size: 2 });
  try {
    const started = Date.now();
    await slow.whenLoaded();
    // Both threads spent their second loading (in parallel); after that no wait is left.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const again = Date.now();
    await slow.whenLoaded();
    expect(Date.now() - again).toBeLessThan(50);
  } finally {
    await slow.close();
  }
  // Closed while its threads still load (a service stopped during its boot): the wait ends.
  const closing = new ThreadPool({ entry: new URL('./fixtures/slow-start-thread.ts', import.meta.url), size: 1 });
  const ended = expect(closing.whenLoaded()).rejects.toThrow('thread pool is closed');
  await closing.close();
  await ended;
});

it('fails a task with the error of a thread whose entry cannot load, rather than waiting for it', async () => {
  const broken = new ThreadPool({ entry: new URL('./fixtures/broken-thread.ts', import.meta.url), size: 1 });
  try {
    await expect(broken.whenLoaded()).rejects.toThrow('entry failed to load');
    const error = await broken.run({}, 5_000).catch((e: Error) => e);
    expect((error as Error).message).toContain('entry failed to load');
    // The thread's code is a data: URL module: its frames name the entry's bundle, not the whole URL.
    expect((error as Error).stack).toContain('bundle:');
    expect((error as Error).stack).not.toContain('data:');
  } finally {
    await broken.close();
  }
});

it('fails the pool at once when its entry cannot be built', async () => {
  const unbuildable = new ThreadPool({ entry: new URL('./fixtures/unbuildable-thread.ts', import.meta.url), size: 2 });
  try {
    await expect(unbuildable.whenLoaded()).rejects.toThrow(/unbuildable-thread\.ts could not be built: [\s\S]*gleaner-no-such-package/);
    await expect(unbuildable.run({}, 5_000)).rejects.toThrow('could not be built');
  } finally {
    await unbuildable.close();
  }
});

it('runs threads without the loaders the owning process was started with (node --import tsx)', async () => {
  // The owner is a process of its own started as the services are; its thread reports back.
  const script = [
    `import { ThreadPool } from ${JSON.stringify(new URL('../src/thread-pool.ts', import.meta.url).href)};`,
    `const pool = new ThreadPool({ entry: new URL(${JSON.stringify(new URL('./fixtures/echo-thread.ts', import.meta.url).href)}), size: 1 });`,
    `console.log(JSON.stringify(await pool.run({ op: 'runtime', n: 0 }, 20_000)));`,
    'await pool.close();',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--no-deprecation', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(child.stderr).toBe('');
  const { execArgv, loads } = JSON.parse(child.stdout) as { execArgv: string[]; loads: string };
  // Other options are kept.
  expect(execArgv).toEqual(['--no-deprecation']);
  // No TypeScript loader in the thread: only the bundled code ran, a .ts file that needs compiling
  // cannot load (Node 20: unknown extension; Node 24: enums are not supported by type stripping).
  expect(loads).toMatch(/Unknown file extension "\.ts"|TypeScript enum is not supported/);
}, 40_000);

it("releases a thread's dead buffers only when they are over the limit", async () => {
  // 48 MB dropped: collected, and their memory is gone once V8 has swept.
  const left = await pool.run<{ op: string; n: number }, number>({ op: 'dead-buffers', n: 48 }, 10_000);
  expect(left).toBeGreaterThanOrEqual(0);
  expect(left).toBeLessThan(8);
  // 4 MB: under the 16 MB limit, no collection.
  expect(await pool.run({ op: 'dead-buffers', n: 4 }, 5_000)).toBe(-1);
});

describe('host calls', () => {
  const asked: Array<{ n: number; signal: AbortSignal }> = [];
  const hosting = new ThreadPool({
    entry: new URL('./fixtures/echo-thread.ts', import.meta.url),
    size: 2,
    host: async (request, signal) => {
      const { n, bytes } = request as { n: number; bytes?: Uint8Array };
      asked.push({ n, signal });
      if (bytes) return bytes.reduce((sum, b) => sum + b, 0);
      if (n < 0) throw new RangeError('negative');
      // Answers slowly enough for a budget to run out first.
      if (n === 99) await new Promise((resolve) => setTimeout(resolve, 1_000));
      return n * n;
    },
  });
  afterAll(() => hosting.close());

  it('answers what threads ask of the owner, failures included, one shared host for every thread', async () => {
    expect(await Promise.all([3, 4, 5].map((n) => hosting.run({ op: 'host', n }, 5_000)))).toEqual([9, 16, 25]);
    const error = await hosting.run({ op: 'host', n: -1 }, 5_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadTaskError);
    expect((error as ThreadTaskError).remoteName).toBe('RangeError');
    expect((error as ThreadTaskError).message).toBe('negative');
  });

  it('moves the buffers a host call lists to transfer instead of copying them', async () => {
    // The owner got all 1000 bytes (of 7 each); none are left in the thread.
    expect(await hosting.run({ op: 'host-moved', n: 1000 }, 5_000)).toEqual({ answer: 7000, leftHere: 0 });
  });

  it('aborts the host call of a task whose thread was replaced, and keeps serving', async () => {
    const err = await hosting.run({ op: 'host-then-spin', n: 99 }, 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskTimeoutError);
    const call = asked.find((a) => a.n === 99)!;
    expect(call.signal.aborted).toBe(true);
    expect(await hosting.run({ op: 'host', n: 6 }, 5_000)).toBe(36);
    // A task that ended normally aborts its calls too: nothing is left to wait for them.
    expect(asked.find((a) => a.n === 6)!.signal.aborted).toBe(true);
  });

  it('fails a host call when the pool has no host', async () => {
    const error = await pool.run({ op: 'host', n: 2 }, 5_000).catch((e: unknown) => e);
    expect((error as ThreadTaskError).message).toMatch(/serves no host calls/);
  });
});
