import got, { type Response } from 'got';
import type { IncomingHttpHeaders } from 'node:http';
import { guardedAgents, type AddressPolicy } from './address-policy.js';
import { isChallengePage } from './challenge.js';
import { isHtmlType, mediaTypeOf } from './content-type.js';
import { FetchError } from './fetch-error.js';
import { toFetchError } from './got-errors.js';
import { parseRetryAfter } from './post-json.js';
import { parseHttpUrl } from './public-url.js';

/** Options shared by `fetchPage` and `fetchBinary`. */
export interface TransferOptions extends Partial<AddressPolicy> {
  /** Limit on the body after decompression, enforced while it streams. */
  maxBytes?: number;
  /** DNS lookup, TCP connect and TLS handshake, each. Default 10 s (or the deadline, if shorter). */
  connectTimeoutMs?: number;
  /** From sending the request to the response headers. Default: only the deadline bounds it. */
  responseTimeoutMs?: number;
  /**
   * One deadline for the whole fetch: connect, every redirect hop, headers and body together, so
   * a target that drips its answer cannot stretch it. Default 20 s (documents: 120 s). Passing it
   * fails with kind 'deadline', which is not retried: the same target would drip again.
   */
  deadlineMs?: number;
  /** Redirects followed, each hop guarded; one more fails with 'too_many_redirects'. Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  /**
   * Asked before each redirect is followed, with the hop's URL (each hop's address is still
   * checked by the guard when connecting): a string refuses the hop, and the fetch fails with kind
   * 'redirect_refused' and that message (a crawl's scope, robots.txt and dedupe rules).
   */
  beforeRedirect?: (to: URL) => string | undefined | Promise<string | undefined>;
  /** Aborts the fetch from outside (kind 'aborted'): a cancelled crawl stops its pages at once. */
  signal?: AbortSignal;
}

/** What a caller of `transfer` adds: its defaults and its say on the response head. */
export interface TransferSpec {
  accept: string;
  defaultMaxBytes: number;
  defaultDeadlineMs: number;
  /** Called with the head of a successful answer before the body is read; throws to refuse it. */
  checkHead?: (head: { statusCode: number; headers: IncomingHttpHeaders }) => void;
}

export interface RawTransfer {
  finalUrl: string;
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  redirects: string[];
}

/** A current desktop browser: many sites serve bots a stripped page or a challenge. */
export const DEFAULT_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/133.0.0.0 Safari/537.36';

/** Error answers are read only far enough to recognise a challenge page. */
const ERROR_BODY_BYTES = 64 * 1024;

function tooLarge(maxBytes: number): FetchError {
  const limit = maxBytes >= 1024 * 1024 ? `${Math.round((maxBytes / (1024 * 1024)) * 10) / 10} MB` : `${maxBytes} bytes`;
  return new FetchError('too_large', `the response is larger than ${limit}`);
}

/** 30 s, 2.5 s, 0.3 s: a deadline under a second is not "0 s". How every budget and deadline is worded in an error. */
export const secondsText = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** The deadline passed: what callers show as "target did not answer within 30 s". */
export function deadlineError(deadlineMs: number, cause?: unknown): FetchError {
  return new FetchError('deadline', `target did not answer within ${secondsText(deadlineMs)}`, undefined, { cause });
}

function refusalFor(statusCode: number, headers: IncomingHttpHeaders, body: Buffer): FetchError | undefined {
  const type = mediaTypeOf(headers['content-type']);
  const mayBeChallenge = type === '' || isHtmlType(type);
  const challenge = mayBeChallenge && isChallengePage({ statusCode, headers, head: body.subarray(0, ERROR_BODY_BYTES).toString('latin1'), bodyBytes: body.length });
  // 429 and 503 may say when to come back; a crawl's throttle waits at least that long.
  const retryAfterSeconds = statusCode === 429 || statusCode === 503 ? parseRetryAfter(headers['retry-after']) : undefined;
  const extra = retryAfterSeconds !== undefined ? { retryAfterMs: retryAfterSeconds * 1000 } : undefined;
  if (statusCode === 403 || statusCode === 429 || challenge) {
    return new FetchError('blocked', `blocked by the target site (HTTP ${statusCode})`, statusCode, extra);
  }
  // A 3xx here had no usable Location: its body is not the page either.
  if (statusCode >= 300) return new FetchError('http_status', `target answered HTTP ${statusCode}`, statusCode, extra);
  return undefined;
}

async function readBody(stream: AsyncIterable<Buffer>, limit: number, onOverflow: 'throw' | 'truncate', maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of stream) {
    if (received + chunk.length > limit) {
      if (onOverflow === 'throw') throw tooLarge(maxBytes);
      chunks.push(chunk.subarray(0, limit - received));
      break;
    }
    received += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * One guarded GET. Every hop's addresses are checked at connection time by the filtering agents;
 * no got-level retries (BullMQ owns retries); a connect timeout and one total deadline; at most N
 * redirects; and a byte limit counted on the decompressed stream, so a gzip bomb stops at the
 * limit instead of filling memory.
 */
export async function transfer(url: string, options: TransferOptions, spec: TransferSpec): Promise<RawTransfer> {
  parseHttpUrl(url);
  const maxBytes = options.maxBytes ?? spec.defaultMaxBytes;
  const deadlineMs = options.deadlineMs ?? spec.defaultDeadlineMs;
  const connectMs = options.connectTimeoutMs ?? Math.min(10_000, deadlineMs);
  // got's `timeout.request` restarts with every redirect hop, so it cannot bound the transfer;
  // one abort signal covers every hop and the body. Its timer is armed once got.stream has
  // returned: building the agents may throw, and a timer left behind would hold the process.
  const deadline = new AbortController();
  const outside = options.signal;
  if (outside?.aborted) throw new FetchError('aborted', 'the fetch was cancelled');
  const abortFromOutside = () => deadline.abort();
  outside?.addEventListener('abort', abortFromOutside, { once: true });
  const beforeRedirect = options.beforeRedirect;
  const stream = got.stream(url, {
    signal: deadline.signal,
    agent: guardedAgents({ allowPrivateNetworks: options.allowPrivateNetworks ?? false, allowList: options.allowList, denyList: options.denyList }),
    enableUnixSockets: false,
    retry: { limit: 0 },
    followRedirect: true,
    maxRedirects: options.maxRedirects ?? 5,
    throwHttpErrors: false,
    decompress: true,
    ...(beforeRedirect
      ? {
          hooks: {
            beforeRedirect: [
              async (next: { url?: URL | string }) => {
                const to = new URL(String(next.url));
                const refusal = await beforeRedirect(to);
                if (refusal) throw new FetchError('redirect_refused', refusal, undefined, { redirectTo: to.href });
              },
            ],
          },
        }
      : {}),
    timeout: {
      lookup: connectMs,
      connect: connectMs,
      secureConnect: connectMs,
      ...(options.responseTimeoutMs ? { response: options.responseTimeoutMs } : {}),
    },
    headers: {
      'user-agent': options.userAgent ?? DEFAULT_USER_AGENT,
      accept: spec.accept,
      'accept-language': 'en-US,en;q=0.9',
    },
  });
  // Errors reach us through the promise below and the body iterator; this keeps a late one
  // (after we stopped listening) from becoming an unhandled 'error' event.
  stream.on('error', () => undefined);
  const deadlineTimer = setTimeout(() => deadline.abort(), deadlineMs);

  try {
    const response = await new Promise<Response>((resolve, reject) => {
      stream.once('response', resolve);
      stream.once('error', reject);
    });
    const { statusCode, headers } = response;
    if (statusCode >= 300) {
      // The status is already known; a body that stalls or breaks must not hide it.
      const sample = await readBody(stream, ERROR_BODY_BYTES, 'truncate', maxBytes).catch(() => Buffer.alloc(0));
      throw refusalFor(statusCode, headers, sample) ?? new FetchError('http_status', `target answered HTTP ${statusCode}`, statusCode);
    }
    spec.checkHead?.({ statusCode, headers });
    // Content-Length counts encoded bytes, and a decoded body is never meaningfully smaller than
    // its encoded form, so the early refusal holds whatever the encoding.
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
    const body = await readBody(stream, maxBytes, 'throw', maxBytes);
    const refusal = refusalFor(statusCode, headers, body);
    if (refusal) throw refusal;
    return { finalUrl: response.url, statusCode, headers, body, redirects: response.redirectUrls.map((u) => u.toString()) };
  } catch (err) {
    // Our own refusals (a status already read, too_large) stand even if the deadline passed since.
    if (!(err instanceof FetchError) && outside?.aborted) throw new FetchError('aborted', 'the fetch was cancelled', undefined, { cause: err });
    if (!(err instanceof FetchError) && deadline.signal.aborted) throw deadlineError(deadlineMs, err);
    throw toFetchError(err);
  } finally {
    clearTimeout(deadlineTimer);
    outside?.removeEventListener('abort', abortFromOutside);
    stream.destroy();
  }
}
