import type { ApiErrorBody } from './types.js';

/** The API answered with an error status; `body` is the family's error body as sent. */
export class GleanerApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    /** X-Request-ID of the answer. */
    readonly requestId: string | null,
    /** `Retry-After` of a 429 or 503 (or the parser's 500 while Redis is down), in seconds. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    const details = 'details' in body && Array.isArray(body.details) && body.details.length ? ` (${body.details.join('; ')})` : '';
    super(`Gleaner API answered ${status}: ${body.error}${details}`);
    this.name = 'GleanerApiError';
  }

  /** The family's code ("E003", "400-002"), when the error reads "CODE: message". */
  get code(): string | null {
    return /^([A-Z]?\d{3}(?:-\d{3})?|E429): /.exec(this.body.error)?.[1] ?? null;
  }
}

/** A request was accepted and later ended FAILED (seen on its status endpoint while waiting). */
export class GleanerJobFailedError extends Error {
  constructor(
    readonly requestId: string,
    /** "CODE: message" as the status endpoint reported it. */
    readonly error: string,
    readonly details: string[] = [],
    /** The failed status record as the status endpoint answered it. */
    readonly record: object = {},
  ) {
    super(`request ${requestId} failed: ${error}${details.length ? ` (${details.join('; ')})` : ''}`);
    this.name = 'GleanerJobFailedError';
  }
}

/** Waiting gave up; the request goes on and can still be read with its request id. */
export class GleanerTimeoutError extends Error {
  constructor(
    readonly requestId: string,
    readonly waitedMs: number,
    /** The last answer seen while waiting: the latest status record, or the 202 answer if none was read. */
    readonly latest: object = {},
  ) {
    super(`request ${requestId} was not finished after ${Math.round(waitedMs / 1000)} s`);
    this.name = 'GleanerTimeoutError';
  }
}

/** A successful answer without what the API documents (a proxy in the way, or an incompatible version). */
export class GleanerProtocolError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly requestId: string | null,
  ) {
    super(message);
    this.name = 'GleanerProtocolError';
  }
}
