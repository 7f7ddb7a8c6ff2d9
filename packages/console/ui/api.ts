/** Calls of the gateway's API with the signed-in key: same origin, the key in x-api-key, no cookies. */

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The error string of any family's body: `{error}` (scraper, account, v1, parser), plus parser `details`. */
function problemOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { error?: unknown; details?: unknown };
    const details = Array.isArray(b.details) ? ` (${b.details.join('; ')})` : typeof b.details === 'string' ? ` (${b.details})` : '';
    if (typeof b.error === 'string') return b.error + details;
  }
  return `HTTP ${status}`;
}

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** Any answer, error statuses included: the playground shows them as they are. */
export async function callApi<T = unknown>(apiKey: string, method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const response = await fetch(path, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body: parsed as T };
}

/** A call that must succeed: an error status throws ApiProblem with the API's own message. */
export async function api<T = unknown>(apiKey: string, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(apiKey, method, path, body);
  if (answer.status >= 400) throw new ApiProblem(answer.status, problemOf(answer.status, answer.body));
  return answer.body;
}

export interface AccountInfo {
  account_id: string;
  name: string;
  key_id: string;
  scopes: string[];
}
