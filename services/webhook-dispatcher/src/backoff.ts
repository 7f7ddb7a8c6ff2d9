/** Thrown for answers worth retrying; carries the receiver's Retry-After when it sent one. */
export class RetryableDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryableDeliveryError';
  }
}

/** Longest wait we accept from a receiver's Retry-After. */
const MAX_RETRY_AFTER_MS = 60 * 60_000;

/**
 * Exponential backoff with ±20 % jitter (so a receiver that comes back is not hit by every
 * delivery at once): base, 2×base, 4×base … With the production base of 30 s and 8 attempts the
 * retries span about an hour. A receiver's Retry-After wins when it asks for longer.
 */
export function webhookBackoffDelay(attemptsMade: number, baseMs: number, err?: Error, random = Math.random): number {
  const exponential = baseMs * 2 ** Math.max(0, attemptsMade - 1);
  const jittered = Math.round(exponential * (0.8 + 0.4 * random()));
  const asked = err instanceof RetryableDeliveryError && err.retryAfterMs ? Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
  return Math.max(jittered, asked);
}
