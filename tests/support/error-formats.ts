/**
 * The exact error body of each API family (SPEC "Errors", API-DECISIONS). Each checker returns
 * null when `body` is a well-formed error answer for HTTP `status`, else what is wrong, so a test
 * can collect every problem of a large run before failing.
 */
export type ErrorFamily = 'scraper' | 'v1' | 'parser' | 'bot' | 'account' | 'mcp';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const keysOf = (v: Record<string, unknown>) => Object.keys(v).sort().join(',');

/** A 403 names the scope the key lacks in `details` (issue 36); other errors of these families have none. */
function detailsProblem(body: Record<string, unknown>, status: number): string | null {
  if (body.details === undefined) return null;
  if (status !== 403) return `details on a ${status}`;
  if (!Array.isArray(body.details) || body.details.length === 0 || body.details.some((d) => typeof d !== 'string')) return 'details is not a non-empty array of strings';
  return null;
}

/** `{error: "E00x: message"}`, nothing else but a 403's details (`/account/*` uses the same format). */
export function scraperErrorProblem(body: unknown, status: number): string | null {
  if (!isObject(body)) return 'body is not a JSON object';
  const { details: _details, ...rest } = body;
  if (keysOf(rest) !== 'error') return `keys are ${keysOf(body)}, expected only error`;
  const details = detailsProblem(body, status);
  if (details) return details;
  if (typeof body.error !== 'string' || !/^E\d{3}: \S/.test(body.error)) return `error ${JSON.stringify(body.error)} is not "E0xx: message"`;
  if (status === 429 && !body.error.startsWith('E429: ')) return 'a 429 must carry E429';
  return null;
}

/** `{error, status_code}` with status_code equal to the HTTP status (and a 403's details). */
export function v1ErrorProblem(body: unknown, status: number): string | null {
  if (!isObject(body)) return 'body is not a JSON object';
  const { details: _details, ...rest } = body;
  if (keysOf(rest) !== 'error,status_code') return `keys are ${keysOf(body)}, expected error,status_code`;
  const details = detailsProblem(body, status);
  if (details) return details;
  if (typeof body.error !== 'string' || body.error.trim() === '') return 'error is not a non-empty string';
  if (body.status_code !== status) return `status_code ${JSON.stringify(body.status_code)} differs from HTTP ${status}`;
  return null;
}

/** `{error: "NNN-NNN: message", details: [strings]}`; the HTTP status is the code's first three digits. */
export function parserErrorProblem(body: unknown, status: number): string | null {
  if (!isObject(body)) return 'body is not a JSON object';
  if (keysOf(body) !== 'details,error') return `keys are ${keysOf(body)}, expected details,error`;
  const match = typeof body.error === 'string' ? /^(\d{3})-\d{3}: \S/.exec(body.error) : null;
  if (!match) return `error ${JSON.stringify(body.error)} is not "NNN-NNN: message"`;
  if (Number(match[1]) !== status) return `code ${match[1]} does not match HTTP ${status}`;
  if (!Array.isArray(body.details) || body.details.some((d) => typeof d !== 'string')) return 'details is not an array of strings';
  return null;
}

/** `{error, request_id, details?}`; request_id equals the X-Request-ID header. */
export function botErrorProblem(body: unknown, _status: number, requestIdHeader?: string): string | null {
  if (!isObject(body)) return 'body is not a JSON object';
  const keys = keysOf(body);
  if (keys !== 'error,request_id' && keys !== 'details,error,request_id') return `keys are ${keys}, expected error,request_id[,details]`;
  if (typeof body.error !== 'string' || body.error.trim() === '') return 'error is not a non-empty string';
  if (typeof body.request_id !== 'string' || body.request_id !== requestIdHeader) return `request_id ${JSON.stringify(body.request_id)} differs from X-Request-ID ${requestIdHeader}`;
  if (body.details !== undefined && (!Array.isArray(body.details) || body.details.some((d) => typeof d !== 'string'))) return 'details is not an array of strings';
  return null;
}

/**
 * `/mcp`: a JSON-RPC error response `{jsonrpc: "2.0", error: {code, message}, id: null}` (the
 * gateway's refusals carry "E00x: message", the MCP transport's its own text).
 */
export function mcpErrorProblem(body: unknown): string | null {
  if (!isObject(body)) return 'body is not a JSON object';
  if (keysOf(body) !== 'error,id,jsonrpc' || body.jsonrpc !== '2.0') return `keys are ${keysOf(body)}, expected a JSON-RPC 2.0 error response`;
  if (!isObject(body.error) || !Number.isInteger(body.error.code) || typeof body.error.message !== 'string' || body.error.message.trim() === '') return 'error is not {code: integer, message: string}';
  return null;
}

export function errorFormatProblem(family: ErrorFamily, body: unknown, status: number, requestIdHeader?: string): string | null {
  switch (family) {
    case 'scraper':
    case 'account':
      return scraperErrorProblem(body, status);
    case 'v1':
      return v1ErrorProblem(body, status);
    case 'parser':
      return parserErrorProblem(body, status);
    case 'bot':
      return botErrorProblem(body, status, requestIdHeader);
    case 'mcp':
      return mcpErrorProblem(body);
  }
}

/** The family a path belongs to, as the gateway routes it (case-insensitively, like express); anything else answers in the scraper's format. */
export function familyOfPath(path: string): ErrorFamily {
  if (/^\/v1\/llm-web-scrapper(\/|$|\?)/i.test(path)) return 'v1';
  if (/^\/documents(\/|$|\?)/i.test(path)) return 'parser';
  if (/^\/bot-webhook(\/|$|\?)/i.test(path)) return 'bot';
  if (/^\/account(\/|$|\?)/i.test(path)) return 'account';
  if (/^\/mcp(\/|$|\?)/i.test(path)) return 'mcp';
  return 'scraper';
}
