import { ApiError, STORAGE_RETRY_AFTER_SECONDS, type ErrorTable } from './api-error.js';

/**
 * Document parser codes (SPEC table); the HTTP status is the code's first three digits. 403-001,
 * 413-001, 400-006 and 422-001 are ours (the SPEC has no code for a missing scope, an oversized
 * body, or an Idempotency-Key malformed or reused with another body).
 */
const CODES: Record<string, string> = {
  '400-001': 'Invalid file type',
  '400-002': 'Invalid URL format',
  '400-003': 'Invalid webhook URL',
  '400-004': 'Missing required field',
  '400-005': 'Invalid output format',
  '400-006': 'Invalid Idempotency-Key header',
  '401-001': 'Invalid API key',
  '403-001': 'API key lacks permission for this API',
  '404-001': 'Request ID not found',
  '404-002': 'Request expired, older than 7 days',
  // A JSON body over 100 KB, or an uploaded file over 50 MB: the details say which.
  '413-001': 'Request too large',
  '422-001': 'Idempotency-Key reused with a different request',
  '429-001': 'Rate limit exceeded',
  '500-001': 'Processing error',
  '500-002': 'Storage error',
  '500-003': 'Webhook delivery failed',
};

const CONDITIONS: Record<string, string> = {
  invalid_json: '400-004',
  payload_too_large: '413-001',
  unauthenticated: '401-001',
  forbidden: '403-001',
  rate_limited: '429-001',
  storage_unavailable: '500-002',
  not_found: '404-001',
  internal: '500-001',
};

const CONDITION_DETAILS: Record<string, string> = {
  invalid_json: 'The request body must be a JSON object',
  payload_too_large: 'a JSON body may be at most 100 KB (send larger documents as a multipart/form-data upload)',
  storage_unavailable: 'The storage service is unavailable; retry shortly',
};

/** Body `{error: "CODE: message", details: [strings]}`. */
export const parserErrors: ErrorTable = {
  render(error: ApiError) {
    const code = CONDITIONS[error.code] ?? error.code;
    const status = error.options.status ?? Number(code.slice(0, 3));
    const message = CODES[code] ?? error.message;
    const details = error.options.details ?? (error.message !== error.code ? [error.message] : CONDITION_DETAILS[error.code] ? [CONDITION_DETAILS[error.code]] : []);
    const headers = { ...(code === '500-002' ? { 'Retry-After': STORAGE_RETRY_AFTER_SECONDS } : {}), ...error.options.headers };
    return { status: Number.isInteger(status) ? status : 500, body: { error: `${code}: ${message}`, details }, headers };
  },
};
