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
  | 'too_many_redirects';

/** Why a fetch failed, in words a caller can show, and whether trying again may help. */
export class FetchError extends Error {
  constructor(
    readonly kind: FetchErrorKind,
    message: string,
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }

  /**
   * Network errors, timeouts and 5xx answers may pass on a later attempt (BullMQ retries them);
   * everything else fails the same way again and should end the job (UnrecoverableError).
   */
  get transient(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    return this.kind === 'http_status' && this.statusCode !== undefined && this.statusCode >= 500;
  }
}
