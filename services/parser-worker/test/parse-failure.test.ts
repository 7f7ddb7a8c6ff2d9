import { afterAll, describe, expect, it } from '@jest/globals';
import { TaskTimeoutError, ThreadPool, ThreadTaskError } from '@gleaner/platform';
import { parseFailure } from '../src/processors/parse.js';

/** The platform's test thread: 'hog' allocates until the thread's heap limit stops it. */
const hogs = new ThreadPool({ entry: new URL('../../../packages/platform/test/fixtures/echo-thread.ts', import.meta.url), size: 1, resourceLimits: { maxOldGenerationSizeMb: 32 } });
afterAll(() => hogs.close());

describe('parseFailure', () => {
  it('maps a parse thread stopped at its memory limit to 400-001 "exceeds a processing limit", not a retry', async () => {
    const error = await hogs.run({ op: 'hog', n: 1 }, 60_000).catch((e: unknown) => e);
    // What the pool hands back when Node stops a thread at its resourceLimits.
    expect((error as Error).message).toMatch(/reaching memory limit/);
    const failure = parseFailure(error);
    expect(failure).toMatchObject({ code: '400-001', message: 'The document exceeds a processing limit', retryable: false });
    expect(failure.details.join(' ')).toMatch(/exceeds a processing limit/);
    // The pool keeps serving with a fresh thread.
    expect(await hogs.run({ op: 'double', n: 4 }, 10_000)).toBe(8);
  }, 90_000);

  it('keeps the document error of a thread, and the budget as 500-001', () => {
    const refused = parseFailure(new ThreadTaskError('DocumentError', 'Invalid PDF file', { code: '400-001', details: ['the PDF is truncated'] }));
    expect(refused).toMatchObject({ code: '400-001', message: 'Invalid file type', details: ['the PDF is truncated'] });
    expect(parseFailure(new TaskTimeoutError(600_000))).toMatchObject({ code: '500-001', details: ['document processing exceeded its 600 s budget'] });
  });
});
