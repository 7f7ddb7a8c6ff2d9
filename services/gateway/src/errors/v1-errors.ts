import { ApiError, STORAGE_RETRY_AFTER_SECONDS, type ErrorTable } from './api-error.js';

/** Deprecated v1: the code is the HTTP status (400, 401, 403, 404, 422, 429, 500). */
const CONDITIONS: Record<string, { status: number; message: string }> = {
  invalid_json: { status: 400, message: 'Request body is not valid JSON' },
  payload_too_large: { status: 413, message: 'Request body exceeds 100 KB' },
  unauthenticated: { status: 401, message: 'Invalid API key' },
  forbidden: { status: 403, message: 'API key lacks permission for this API' },
  rate_limited: { status: 429, message: 'Too many requests' },
  storage_unavailable: { status: 503, message: 'Storage service unavailable, try again shortly' },
  not_found: { status: 404, message: 'Not found' },
  internal: { status: 500, message: 'Processing failed' },
};

/** Body `{error, status_code, details?}` (details only when there are: a 403 names the scope). */
export const v1Errors: ErrorTable = {
  render(error: ApiError) {
    const condition = CONDITIONS[error.code];
    const status = error.options.status ?? condition?.status ?? (Number(error.code) || 500);
    const message = error.message !== error.code ? error.message : (condition?.message ?? 'Error');
    const headers = { ...(status === 503 ? { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS } : {}), ...error.options.headers };
    return { status, body: { error: message, status_code: status, ...(error.options.details?.length ? { details: error.options.details } : {}) }, headers };
  },
};
