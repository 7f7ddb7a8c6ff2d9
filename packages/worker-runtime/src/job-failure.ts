import type { LlmUsage, RecordError } from '@gleaner/store';

/**
 * A processor's failure in its family's vocabulary. `retryable` decides between BullMQ retrying
 * the job (transient: network, timeouts, 5xx) and failing it at once (the input is bad).
 */
export class JobFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly details: string[] = [],
    /** Language-model tokens spent before the failure, kept on the failed record. */
    readonly usage?: LlmUsage,
    /** What failed underneath (a FetchError, whose status a crawl reads to decide on a retry). */
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'JobFailure';
  }

  toRecordError(includeTrace: boolean): RecordError {
    return { code: this.code, message: this.message, details: this.details.length ? this.details : undefined, trace: includeTrace ? this.stack : undefined };
  }
}
