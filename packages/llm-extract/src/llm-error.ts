import { PRIVATE_ADDRESS_REFUSED } from '@gleaner/safe-fetch';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface LlmErrorDetails {
  /** True when the same request may succeed later (rate limits, overload, 5xx, timeouts, network). */
  retryable?: boolean;
  /** HTTP status of the provider's answer, when the failure was one. */
  status?: number;
  /** Tokens the provider reported for the calls that did complete, so they can still be counted. */
  usage?: TokenUsage;
}

/**
 * A language-model call that failed. `reason` is short, fixed wording that is safe to show to the
 * caller: it never carries provider error text (which may echo parts of a key) nor the key itself.
 */
export class LlmError extends Error {
  readonly reason: string;
  readonly retryable: boolean;
  readonly status?: number;
  usage?: TokenUsage;

  constructor(reason: string, details: LlmErrorDetails = {}) {
    super(reason);
    this.name = 'LlmError';
    this.reason = reason;
    this.retryable = details.retryable ?? false;
    this.status = details.status;
    this.usage = details.usage;
  }
}

/** Words for an HTTP failure of a provider, the same for every provider. */
export function reasonForStatus(status: number): string {
  if (status === 401 || status === 403) return `provider rejected the API key (HTTP ${status})`;
  if (status === 404) return 'provider does not know the model or endpoint (HTTP 404)';
  if (status === 408 || status === 504) return `timed out at the provider (HTTP ${status})`;
  if (status === 413) return 'request too large for the provider (HTTP 413)';
  if (status === 429) return 'rate limited by provider (HTTP 429)';
  if (status === 529) return 'provider overloaded (HTTP 529)';
  if (status >= 500) return `provider error (HTTP ${status})`;
  return `provider refused the request (HTTP ${status})`;
}

/** The SDKs' notion of a transient HTTP failure (contract §7), used for `retryable` everywhere. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export const TIMED_OUT = 'timed out waiting for the provider';
export const UNREACHABLE = 'could not reach the provider';
/** The connection-time guard refused every address the provider's host resolved to. */
export const BLOCKED_ADDRESS = `provider base URL ${PRIVATE_ADDRESS_REFUSED}`;

/** The extraction as a whole ran out of time (attempts, retry waits and the repair round together). */
export function deadlineReason(deadlineMs: number): string {
  return `no answer from the provider within the ${Math.round(deadlineMs / 1000)} s deadline`;
}

/** The provider asked for a wait longer than we may spend (the retry cap or the time left). */
export function retryRefusedReason(status: number, retryAfterSeconds: number): string {
  if (status === 429) return `provider rate limit (retry after ${retryAfterSeconds} s)`;
  return `${reasonForStatus(status)}, retry after ${retryAfterSeconds} s`;
}
