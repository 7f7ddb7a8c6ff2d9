import got, { type Response } from 'got';
import type { IncomingHttpHeaders } from 'node:http';
import { guardedAgents, type AddressPolicy } from './address-policy.js';
import { toFetchError } from './got-errors.js';
import { parseHttpUrl } from './public-url.js';

export interface PostAnswer {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** From a Retry-After header (delay in seconds, or an HTTP date turned into seconds from now). */
  retryAfterSeconds?: number;
}

export interface PostJsonOptions extends Partial<AddressPolicy> {
  headers?: Record<string, string>;
  /** The whole exchange, connect to response headers. */
  timeoutMs: number;
}

/** Retry-After as seconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * One webhook POST: guarded at connection time like every fetch, no redirects followed (a
 * receiver must answer itself, and a redirect could point inside our network), any HTTP status
 * returned rather than thrown. The receiver's body is never read: only the status matters, and a
 * hostile receiver could stream without end.
 */
export async function postJson(url: string, body: string, options: PostJsonOptions): Promise<PostAnswer> {
  parseHttpUrl(url);
  const stream = got.stream.post(url, {
    body,
    headers: { 'content-type': 'application/json', ...options.headers },
    agent: guardedAgents({ allowPrivateNetworks: options.allowPrivateNetworks ?? false, allowList: options.allowList, denyList: options.denyList }),
    enableUnixSockets: false,
    retry: { limit: 0 },
    followRedirect: false,
    throwHttpErrors: false,
    timeout: { request: options.timeoutMs },
  });
  stream.on('error', () => undefined);
  try {
    const response = await new Promise<Response>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    return { statusCode: response.statusCode, headers: response.headers, retryAfterSeconds: parseRetryAfter(response.headers['retry-after']) };
  } catch (err) {
    throw toFetchError(err);
  } finally {
    stream.destroy();
  }
}
