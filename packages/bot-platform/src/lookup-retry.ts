import { BotPlatformError } from './bot-platform-error.js';
import { timeLeft } from './platform-transport.js';

export interface RetryPolicy {
  /** Tries in total, the first included. */
  attempts: number;
  /** Backoff before the second try; doubled for each later one. */
  baseDelayMs: number;
  /** Ceiling on a platform-requested wait (429 `retry-after`), so a caller is never parked for an hour. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 250, maxRetryAfterMs: 5000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a read-only call up to `attempts` times while it fails transiently (network, 5xx, 429).
 * Only lookups go through here: a send or create may already have taken effect when it fails,
 * and a blind retry could message a person twice or create a duplicate subscriber (contract §3.4, §3.7).
 * A wait that would end after `deadlineAt` is not started: the last failure is final then, and the
 * caller hears about it while it is still waiting.
 */
export async function withLookupRetry<T>(call: () => Promise<T>, policy: RetryPolicy, deadlineAt?: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof BotPlatformError) || !err.transient || attempt >= policy.attempts) throw err;
      const backoff = policy.baseDelayMs * 2 ** (attempt - 1);
      const wait = err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, policy.maxRetryAfterMs) : backoff;
      if (wait >= timeLeft(deadlineAt)) throw err;
      await sleep(wait);
    }
  }
}
