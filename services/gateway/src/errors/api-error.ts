/** The API families; each renders errors in its own body format (SPEC "Errors"). */
export type ApiFamily = 'scraper' | 'v1' | 'parser' | 'bot' | 'account' | 'mcp';

/**
 * Conditions every family must express. Each family's table maps them to its own code, HTTP
 * status and body; route code raises `ApiError` with either a condition or a family code.
 */
export type CommonCondition =
  | 'invalid_json'
  | 'payload_too_large'
  | 'unauthenticated'
  | 'forbidden'
  | 'rate_limited'
  | 'storage_unavailable'
  | 'not_found'
  | 'internal';

export class ApiError extends Error {
  constructor(
    /** A CommonCondition or a family code (E003, 400-002, 404 …). */
    readonly code: CommonCondition | string,
    message?: string,
    readonly options: { details?: string[]; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message ?? code);
    this.name = 'ApiError';
  }
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export interface ErrorTable {
  render(error: ApiError, requestId: string): RenderedError;
}

/** Storage errors come with a hint to retry: the service recovers by itself when Redis returns. */
export const STORAGE_RETRY_AFTER_SECONDS = '5';
