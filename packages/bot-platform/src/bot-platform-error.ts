export type BotPlatformErrorKind = 'unauthorized' | 'not_found' | 'rate_limited' | 'server' | 'network' | 'timeout' | 'rejected';

/**
 * Why a call to the bot platform failed. The message is safe to show to the caller and to log:
 * it never carries the access token, and the underlying got error (whose options hold the
 * Authorization header) is deliberately not kept as `cause`.
 */
export class BotPlatformError extends Error {
  override readonly name = 'BotPlatformError';

  constructor(
    readonly kind: BotPlatformErrorKind,
    message: string,
    readonly status?: number,
    /** How long the platform asked us to wait (429 `retry-after` or `x-ratelimit-reset`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** Failures a later try may not repeat. Timeouts are excluded: retrying them multiplies the wait. */
  get transient(): boolean {
    return this.kind === 'network' || this.kind === 'server' || this.kind === 'rate_limited';
  }
}
