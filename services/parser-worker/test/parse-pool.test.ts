import { expect, it } from '@jest/globals';
import { ocrShare } from '../src/parse-pool.js';

it('gives a job its share of the OCR workers when every parse thread is busy, at least one', () => {
  // The defaults on two cores (one parse thread, two OCR workers): the job gets every worker.
  expect(ocrShare(2, 1)).toBe(2);
  // Two jobs at once, one worker's worth of pages each; a remainder goes to none.
  expect(ocrShare(2, 2)).toBe(1);
  expect(ocrShare(8, 2)).toBe(4);
  expect(ocrShare(3, 2)).toBe(1);
  // More jobs than workers: each still keeps a page in flight.
  expect(ocrShare(1, 4)).toBe(1);
});
