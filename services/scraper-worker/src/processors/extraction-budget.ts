import { TaskTimeoutError, ThreadTaskError } from '@gleaner/platform';

/**
 * An extraction's budget runs out in one of two places: the thread's own clock, checked between
 * extraction phases (ExtractionTimeoutError, the thread lives on), or the pool's timer, which
 * terminates a thread stuck inside one phase. Callers answer both the same way.
 */
export const overBudget = (err: unknown) => err instanceof TaskTimeoutError || (err instanceof ThreadTaskError && err.remoteName === 'ExtractionTimeoutError');
