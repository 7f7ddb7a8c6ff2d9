import { ApiError, STORAGE_RETRY_AFTER_SECONDS, type ErrorTable } from './api-error.js';

const CONDITIONS: Record<string, { status: number; message: string }> = {
  invalid_json: { status: 400, message: 'Invalid JSON body' },
  payload_too_large: { status: 413, message: 'Request body exceeds 100 KB' },
  unauthenticated: { status: 401, message: 'Missing or invalid bearer token' },
  forbidden: { status: 403, message: 'Forbidden' },
  rate_limited: { status: 429, message: 'Rate limit exceeded' },
  storage_unavailable: { status: 503, message: 'Queue service unavailable, try again shortly' },
  not_found: { status: 404, message: 'Not found' },
  internal: { status: 500, message: 'Internal error' },
};

/** Body `{error, request_id, details?}` (API-DECISIONS "Bot webhook"). */
export const botErrors: ErrorTable = {
  render(error: ApiError, requestId: string) {
    const condition = CONDITIONS[error.code];
    const status = error.options.status ?? condition?.status ?? (Number(error.code) || 500);
    const message = error.message !== error.code ? error.message : (condition?.message ?? 'Error');
    const headers = { ...(status === 503 ? { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS } : {}), ...error.options.headers };
    return { status, body: { error: message, request_id: requestId, ...(error.options.details?.length ? { details: error.options.details } : {}) }, headers };
  },
};
