import { expect, it } from '@jest/globals';
import { isRequestId, newRequestId, requestIdTime } from '../src/ids.js';

it('mints UUIDv7 ids whose time can be read back', () => {
  const before = Date.now();
  const id = newRequestId();
  expect(isRequestId(id)).toBe(true);
  const t = requestIdTime(id)!;
  expect(t).toBeGreaterThanOrEqual(before);
  expect(t).toBeLessThanOrEqual(Date.now());
  expect(isRequestId('not-an-id')).toBe(false);
  expect(requestIdTime('6f1c2a3e-0000-4000-8000-000000000000')).toBeNull();
});
