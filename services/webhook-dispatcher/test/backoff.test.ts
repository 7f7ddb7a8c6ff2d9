import { describe, expect, it } from '@jest/globals';
import { RetryableDeliveryError, webhookBackoffDelay } from '../src/backoff.js';

const BASE = 30_000;
const lowest = () => 0;
const highest = () => 1;

describe('webhookBackoffDelay', () => {
  it('doubles from the base with ±20 % jitter', () => {
    expect([1, 2, 3].map((n) => webhookBackoffDelay(n, BASE, undefined, lowest))).toEqual([24_000, 48_000, 96_000]);
    expect([1, 2, 3].map((n) => webhookBackoffDelay(n, BASE, undefined, highest))).toEqual([36_000, 72_000, 144_000]);
  });

  it("waits as long as a receiver's Retry-After asks when that is longer than the backoff", () => {
    const asked = new RetryableDeliveryError('receiver answered HTTP 429', 120_000);
    expect(webhookBackoffDelay(1, BASE, asked, highest)).toBe(120_000);
    expect(webhookBackoffDelay(2, BASE, asked, highest)).toBe(120_000);
  });

  it('keeps the backoff when Retry-After asks for less, and without one', () => {
    expect(webhookBackoffDelay(3, BASE, new RetryableDeliveryError('receiver answered HTTP 429', 5_000), lowest)).toBe(96_000);
    expect(webhookBackoffDelay(1, BASE, new RetryableDeliveryError('receiver answered HTTP 503'), lowest)).toBe(24_000);
    // Only the dispatcher's own error carries a receiver's wish.
    expect(webhookBackoffDelay(1, BASE, Object.assign(new Error('other'), { retryAfterMs: 600_000 }), lowest)).toBe(24_000);
  });

  it('caps what a receiver may ask for at one hour', () => {
    expect(webhookBackoffDelay(1, BASE, new RetryableDeliveryError('receiver answered HTTP 429', 24 * 3600_000), lowest)).toBe(3600_000);
  });
});
