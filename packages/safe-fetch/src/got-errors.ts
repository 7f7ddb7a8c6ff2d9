import { BLOCKED_ADDRESS_CODE } from './address-policy.js';
import { FetchError } from './fetch-error.js';
import { PRIVATE_ADDRESS_REFUSED } from './public-address.js';

interface ErrorLike {
  message?: string;
  code?: string;
  event?: string;
}

/** request-filtering-agent 3.x refuses with "DNS lookup <ip>(…) is not allowed. Because, …" and no code. */
const FILTERING_AGENT_REFUSAL = /\bis not allowed\. Because\b/;

const TIMEOUT_PHASES: Record<string, string> = {
  lookup: 'resolving the host',
  connect: 'connecting',
  secureConnect: 'the TLS handshake',
  socket: 'an idle connection',
  send: 'sending the request',
  response: 'the response headers',
  request: 'the whole response',
  read: 'the response body',
};

function timeoutError(e: ErrorLike, err: unknown): FetchError {
  const ms = /for (\d+)ms/.exec(e.message ?? '')?.[1];
  const phase = (e.event && TIMEOUT_PHASES[e.event]) ?? 'the target';
  return new FetchError('timeout', `timed out${ms ? ` after ${ms} ms` : ''} waiting for ${phase}`, undefined, { cause: err });
}

/**
 * Whether a connection's error is the address policy's refusal (toFetchError's 'blocked_address'),
 * told without building a FetchError: the browser-worker's proxy asks for every failed connection.
 */
export function isAddressRefusal(err: unknown): boolean {
  const e = (typeof err === 'object' && err !== null ? err : {}) as ErrorLike;
  return e.code === BLOCKED_ADDRESS_CODE || FILTERING_AGENT_REFUSAL.test(e.message ?? '');
}

/** Maps got's errors, the filtering agent's refusals and socket errors to our kinds. */
export function toFetchError(err: unknown): FetchError {
  if (err instanceof FetchError) return err;
  // got wraps whatever failed; a FetchError thrown inside a stream handler comes back as the cause.
  if (err instanceof Error && err.cause instanceof FetchError) return err.cause;
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as ErrorLike;
  const message = e.message ?? 'unknown error';
  if (isAddressRefusal(e)) {
    return new FetchError('blocked_address', `the host ${PRIVATE_ADDRESS_REFUSED}`, undefined, { cause: err });
  }
  if (/UNIX (domain )?socket/i.test(message)) return new FetchError('invalid_url', 'UNIX socket URLs are not allowed', undefined, { cause: err });
  switch (e.code) {
    case 'ETIMEDOUT':
      return timeoutError(e, err);
    case 'ERR_TOO_MANY_REDIRECTS':
      return new FetchError('too_many_redirects', message.replace(/^Redirected (\d+) times\. Aborting\.$/, 'more than $1 redirects'), undefined, { cause: err });
    case 'ENOTFOUND':
    case 'ENODATA':
      return new FetchError('dns', `could not resolve the host (${e.code})`, undefined, { cause: err });
    // A resolver that is down or slow is a passing condition: retrying later can succeed.
    case 'EAI_AGAIN':
      return new FetchError('network', 'temporary DNS failure (EAI_AGAIN)', undefined, { cause: err });
    case 'ERR_INVALID_URL':
    case 'ERR_UNSUPPORTED_PROTOCOL':
      return new FetchError('invalid_url', message, undefined, { cause: err });
    default:
      return new FetchError('network', `network error: ${message}`, undefined, { cause: err });
  }
}
