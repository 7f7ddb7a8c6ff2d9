import { describe, expect, it } from '@jest/globals';
import { refusedWaitSeconds, retryDelayMs, shouldRetryResponse } from '../src/retry-policy.js';

const headers = (h: Record<string, string>) => new Headers(h);

describe('retry policy (same as the provider SDKs)', () => {
  it('retries 408, 409, 429 and 5xx only, unless x-should-retry says otherwise', () => {
    for (const status of [408, 409, 429, 500, 503, 529]) expect(shouldRetryResponse(status, headers({}))).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422]) expect(shouldRetryResponse(status, headers({}))).toBe(false);
    expect(shouldRetryResponse(503, headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(shouldRetryResponse(400, headers({ 'x-should-retry': 'true' }))).toBe(true);
  });

  it('prefers retry-after-ms, then retry-after in seconds or as a date', () => {
    expect(retryDelayMs(headers({ 'retry-after-ms': '12.5', 'retry-after': '30' }), 0)).toBe(12.5);
    expect(retryDelayMs(headers({ 'retry-after': '2' }), 0)).toBe(2000);
    const date = retryDelayMs(headers({ 'retry-after': new Date(Date.now() + 5000).toUTCString() }), 0);
    expect(date).toBeGreaterThan(3000);
    expect(date).toBeLessThanOrEqual(5000);
  });

  it('falls back to jittered exponential backoff capped at 8 s for absent, zero or absurd values', () => {
    for (const h of [undefined, headers({ 'retry-after': '0' }), headers({ 'retry-after': 'soon' }), headers({ 'retry-after-ms': String(2 ** 32) })]) {
      const first = retryDelayMs(h, 0);
      expect(first).toBeGreaterThanOrEqual(375);
      expect(first).toBeLessThanOrEqual(500);
    }
    const second = retryDelayMs(undefined, 1);
    expect(second).toBeGreaterThanOrEqual(750);
    expect(second).toBeLessThanOrEqual(1000);
    const late = retryDelayMs(undefined, 10);
    expect(late).toBeGreaterThanOrEqual(6000);
    expect(late).toBeLessThanOrEqual(8000);
  });

  it('refuses a requested wait beyond the cap or the time left, and only a requested one', () => {
    const limits = { remainingMs: 30_000, maxWaitMs: 60_000 };
    expect(refusedWaitSeconds(headers({ 'retry-after': '86400' }), limits)).toBe(86400);
    expect(refusedWaitSeconds(headers({ 'retry-after': '31' }), limits)).toBe(31);
    expect(refusedWaitSeconds(headers({ 'retry-after': '29' }), limits)).toBeUndefined();
    expect(refusedWaitSeconds(headers({ 'retry-after': '90' }), { remainingMs: 600_000, maxWaitMs: 60_000 })).toBe(90);
    expect(refusedWaitSeconds(headers({ 'retry-after-ms': '1500.5' }), { remainingMs: 1_000, maxWaitMs: 60_000 })).toBe(2);
    // Without a wait to honour, the ordinary backoff applies (it is short and bounded).
    for (const h of [undefined, headers({}), headers({ 'retry-after': '0' }), headers({ 'retry-after': 'soon' })]) expect(refusedWaitSeconds(h, limits)).toBeUndefined();
  });
});
