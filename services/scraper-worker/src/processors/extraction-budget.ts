import { TaskTimeoutError, ThreadTaskError } from '@gleaner/platform';

/** 30 s, 2.5 s, 0.1 s: a budget under a second is not "0 s". */
export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * An extraction's budget runs out in one of two places: the thread's own clock, checked between
 * extraction phases (ExtractionTimeoutError, the thread lives on), or the pool's timer, which
 * terminates a thread stuck inside one phase. Callers answer both the same way.
 */
export const overBudget = (err: unknown) => err instanceof TaskTimeoutError || (err instanceof ThreadTaskError && err.remoteName === 'ExtractionTimeoutError');
