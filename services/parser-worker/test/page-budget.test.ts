import { afterAll, describe, expect, it } from '@jest/globals';
import { ThreadPool } from '@gleaner/platform';
import { PageBudget, PageBudgetExceededError } from '../src/page-budget.js';
import { parseFailure } from '../src/processors/parse.js';

/** The platform's test thread: 'spin' is synchronous work only termination stops. */
const threads = new ThreadPool({ entry: new URL('../../../packages/platform/test/fixtures/echo-thread.ts', import.meta.url), size: 1 });
afterAll(() => threads.close());

const aborted = (signal: AbortSignal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

describe('PageBudget', () => {
  it('allows one page more than the pages read, at most the cap', () => {
    const budget = new PageBudget(1_000, 3_500);
    try {
      expect([0, 1, 2, 3, 100].map((pages) => budget.allowedMs(pages))).toEqual([1_000, 2_000, 3_000, 3_500, 3_500]);
    } finally {
      budget.stop();
    }
  });

  it('stops a parse thread that reads no page within one page\'s time, long before the job budget', async () => {
    const budget = new PageBudget(1_000, 60_000);
    const started = Date.now();
    const error = await threads.run({ op: 'spin', n: 0 }, 60_000, undefined, budget.signal).catch((e: unknown) => e);
    budget.stop();
    expect(error).toBeInstanceOf(PageBudgetExceededError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(parseFailure(error)).toMatchObject({ code: '500-001', retryable: false, details: ['document processing exceeded its 1 s budget (1 s a page, 0 pages read)'] });
    // The pool serves on with a fresh thread.
    expect(await threads.run({ op: 'double', n: 4 }, 30_000)).toBe(8);
  }, 60_000);

  it('gives more time for each page read, and no more than the cap whatever the pages', async () => {
    const budget = new PageBudget(300, 1_000);
    const started = Date.now();
    const reason = aborted(budget.signal);
    // Pages read every 200 ms: each moves the end by 300 ms, until the 1 s cap.
    const reading = setInterval(() => budget.pagesDone(Math.round((Date.now() - started) / 200)), 200);
    const error = await reason;
    clearInterval(reading);
    budget.stop();
    expect(error).toBeInstanceOf(PageBudgetExceededError);
    expect((error as PageBudgetExceededError).budgetMs).toBe(1_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('a page count that does not grow does not extend it', async () => {
    const budget = new PageBudget(300, 10_000);
    const started = Date.now();
    const reason = aborted(budget.signal);
    budget.pagesDone(1);
    const repeating = setInterval(() => budget.pagesDone(1), 50);
    const error = (await reason) as PageBudgetExceededError;
    clearInterval(repeating);
    expect([error.budgetMs, error.pagesRead]).toEqual([600, 1]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
