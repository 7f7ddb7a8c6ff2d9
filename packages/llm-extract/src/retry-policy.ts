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

/** Longest wait before a retry we accept from a provider's retry headers (the SDKs have no cap). */
export const MAX_RETRY_WAIT_MS = 60_000;

/** The wait a provider asked for: `retry-after-ms`, else `retry-after` (seconds or HTTP date). */
export function requestedDelayMs(headers: Headers | undefined): number | undefined {
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
  return delay !== undefined && !Number.isNaN(delay) ? delay : undefined;
}

/**
 * Delay before the next attempt: the provider's requested delay when it is a positive delay one
 * timer can hold; otherwise exponential backoff 0.5 s × 2^n capped at 8 s, minus up to 25 %
 * jitter. `retriesDone` counts retries already made (0 before the first). Callers first ask
 * `refusedWaitSeconds` whether the provider's wait may be honoured at all.
 */
export function retryDelayMs(headers: Headers | undefined, retriesDone: number): number {
  const delay = requestedDelayMs(headers);
  if (delay !== undefined && delay > 0 && delay <= MAX_TIMER_MS) return delay;
  return Math.min(0.5 * 2 ** retriesDone, 8) * (1 - Math.random() * 0.25) * 1000;
}

/**
 * Where we part from the SDKs: a provider asking for a wait longer than `maxWaitMs`, or longer than
 * the extraction has left, is not waited for: the call fails at once, and this says after how many
 * seconds the provider would take it again. Undefined when the wait (if any) is acceptable. Without
 * this a `retry-after: 86400` parks the call, and the worker slot running it, for a day.
 */
export function refusedWaitSeconds(headers: Headers | undefined, limits: { remainingMs: number; maxWaitMs: number }): number | undefined {
  const delay = requestedDelayMs(headers);
  if (delay === undefined || delay <= 0) return undefined;
  return delay > Math.min(limits.maxWaitMs, limits.remainingMs) ? Math.ceil(delay / 1000) : undefined;
}
