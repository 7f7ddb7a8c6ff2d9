import { afterAll, expect, it } from '@jest/globals';
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
