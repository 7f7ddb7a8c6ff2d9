import { ApiError, STORAGE_RETRY_AFTER_SECONDS, type ErrorTable } from './api-error.js';

/** Current scraper codes and statuses (API-DECISIONS "Current scraper", "Error statuses"). */
const CODES: Record<string, { status: number; message: string }> = {
  E001: { status: 400, message: 'Invalid request format' },
  E002: { status: 404, message: 'Request ID not found' },
  E003: { status: 400, message: 'Invalid URL format' },
  E004: { status: 401, message: 'Authentication error' },
  E006: { status: 503, message: 'Storage service error' },
  E008: { status: 500, message: 'Content processing failed' },
  E009: { status: 400, message: 'Validation error' },
  E010: { status: 429, message: 'Too many crawls and batches running for this account' },
  E429: { status: 429, message: 'Rate limit exceeded' },
};

const CONDITIONS: Record<string, { code: string; status: number; message: string }> = {
  invalid_json: { code: 'E001', status: 400, message: 'Request body is not valid JSON' },
  payload_too_large: { code: 'E001', status: 413, message: 'Request body exceeds 100 KB' },
  unauthenticated: { code: 'E004', status: 401, message: 'Missing or invalid API key' },
  forbidden: { code: 'E004', status: 403, message: 'API key lacks permission for this API' },
  rate_limited: { code: 'E429', status: 429, message: 'Rate limit exceeded' },
  storage_unavailable: { code: 'E006', status: 503, message: 'Storage service unavailable, try again shortly' },
  not_found: { code: 'E002', status: 404, message: 'Not found' },
  internal: { code: 'E008', status: 500, message: 'Internal error' },
};

/** Body `{error: "CODE: message", details?: [strings]}` (details only when there are: a 403 names the scope). Also used by `/account/*`. */
export const scraperErrors: ErrorTable = {
  render(error: ApiError) {
    const condition = CONDITIONS[error.code];
    const code = condition?.code ?? error.code;
    const status = error.options.status ?? condition?.status ?? CODES[code]?.status ?? 500;
    const message = error.message !== error.code ? error.message : (condition?.message ?? CODES[code]?.message ?? 'Error');
    const headers = { ...(code === 'E006' ? { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS } : {}), ...error.options.headers };
    return { status, body: { error: `${code}: ${message}`, ...(error.options.details?.length ? { details: error.options.details } : {}) }, headers };
  },
};
