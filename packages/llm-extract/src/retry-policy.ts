import { isRetryableStatus } from './llm-error.js';

/**
 * The retry policy of the provider SDKs (contract §7: @anthropic-ai/sdk and openai, identical),
 * reproduced for the provider we call without an SDK so both providers behave alike.
 */

/** `x-should-retry` overrides everything; else 408, 409, 429 and every 5xx are retried. */
export function shouldRetryResponse(status: number, headers: Headers): boolean {
  const override = headers.get('x-should-retry');
  if (override === 'true') return true;
  if (override === 'false') return false;
  return isRetryableStatus(status);
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Delay before the next attempt: `retry-after-ms`, else `retry-after` (seconds or HTTP date) when
 * it is a positive delay one timer can hold; otherwise exponential backoff 0.5 s × 2^n capped at
 * 8 s, minus up to 25 % jitter. `retriesDone` counts retries already made (0 before the first).
 */
export function retryDelayMs(headers: Headers | undefined, retriesDone: number): number {
  let delay: number | undefined;
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const parsed = parseFloat(ms);
    if (!Number.isNaN(parsed)) delay = parsed;
  }
  const after = headers?.get('retry-after');
  if (after && !delay) {
    const seconds = parseFloat(after);
    delay = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  if (delay !== undefined && delay > 0 && delay <= MAX_TIMER_MS) return delay;
  return Math.min(0.5 * 2 ** retriesDone, 8) * (1 - Math.random() * 0.25) * 1000;
}
