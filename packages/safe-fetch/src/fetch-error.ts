export type FetchErrorKind =
  | 'invalid_url'
  | 'blocked_address'
  | 'dns'
  | 'timeout'
  /** The fetch's one total deadline passed (TransferOptions.deadlineMs): not retried. */
  | 'deadline'
  | 'too_large'
  | 'unsupported_type'
  | 'http_status'
  | 'blocked'
  | 'network'
  | 'too_many_redirects'
  /** The caller's `beforeRedirect` refused to follow a redirect (a crawl's scope or dedupe rules). */
  | 'redirect_refused'
  /** The caller's `signal` aborted the fetch (a cancelled crawl). */
  | 'aborted';

/** Why a fetch failed, in words a caller can show, and whether trying again may help. */
export class FetchError extends Error {
  constructor(
    readonly kind: FetchErrorKind,
    message: string,
    readonly statusCode?: number,
    options?: { cause?: unknown; retryAfterMs?: number; redirectTo?: string },
  ) {
    super(message, options);
    this.name = 'FetchError';
    this.retryAfterMs = options?.retryAfterMs;
    this.redirectTo = options?.redirectTo;
  }

  /** 429 and 503 answers: how long the target asked us to wait (its Retry-After), when it said. */
  readonly retryAfterMs?: number;
  /** 'redirect_refused': the URL the refused redirect pointed to. */
  readonly redirectTo?: string;

  /**
   * Network errors, timeouts and 5xx answers may pass on a later attempt (BullMQ retries them);
   * everything else fails the same way again and should end the job (UnrecoverableError).
   */
  get transient(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    return this.kind === 'http_status' && this.statusCode !== undefined && this.statusCode >= 500;
  }
}
