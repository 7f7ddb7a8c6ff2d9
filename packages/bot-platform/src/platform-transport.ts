import got, { RequestError, TimeoutError } from 'got';
import { BotPlatformError } from './bot-platform-error.js';

export interface PlatformAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined when the body is empty or not JSON (an HTML error page). */
  json: unknown;
}

export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  searchParams?: Record<string, string>;
  body?: unknown;
}

export type PlatformTransport = (request: PlatformRequest) => Promise<PlatformAnswer>;

/**
 * Admission of each request before it is sent: how a per-token quota (contract §5: the platform
 * caps requests per token per hour) is kept across every connector replica. Refused: how long
 * until a request may be sent again.
 */
export interface RequestAdmission {
  admit(): Promise<{ admitted: true } | { admitted: false; retryAfterMs: number }>;
}

export interface PlatformTransportOptions {
  baseUrl: string;
  token: string;
  /** Limit on each single HTTP exchange. */
  timeoutMs: number;
  /**
   * Epoch ms by which the caller must have its answer. Each exchange's timeout is cut to the time
   * left, and nothing is sent once it has passed: the caller would never learn what happened.
   */
  deadlineAt?: number;
  admission?: RequestAdmission;
}

/** Longest piece of a platform message we repeat; enough for a Laravel validation message. */
const MAX_MESSAGE = 200;

export function describeTimeout(timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return `Bot platform did not answer within ${seconds} s`;
}

/** Milliseconds left before `deadlineAt`; Infinity without one. */
export function timeLeft(deadlineAt: number | undefined, now = Date.now()): number {
  return deadlineAt === undefined ? Infinity : deadlineAt - now;
}

/**
 * One HTTP exchange with the platform. Every HTTP status is returned rather than thrown; only
 * network failures, timeouts, a passed deadline and a refused admission throw. Retries are the
 * caller's decision, so got never retries.
 */
export function createPlatformTransport(options: PlatformTransportOptions): PlatformTransport {
  const base = options.baseUrl.replace(/\/+$/, '');
  return async (request) => {
    const timeoutMs = Math.min(options.timeoutMs, timeLeft(options.deadlineAt));
    if (timeoutMs <= 0) throw new BotPlatformError('timeout', 'No time was left before the caller\'s deadline to ask the bot platform');
    const admission = await options.admission?.admit();
    if (admission && !admission.admitted) {
      throw new BotPlatformError('rate_limited', `Request quota for this bot token is used up (next request in ${Math.ceil(admission.retryAfterMs / 1000)} s)`, undefined, admission.retryAfterMs);
    }
    try {
      const res = await got(`${base}${request.path}`, {
        method: request.method,
        searchParams: request.searchParams,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        // Contract §1: the API wants JSON content negotiation on every call, GET included.
        headers: { authorization: `Bearer ${options.token}`, accept: 'application/json', 'content-type': 'application/json' },
        retry: { limit: 0 },
        // A redirect means a wrong base URL; following it could carry the token elsewhere.
        followRedirect: false,
        throwHttpErrors: false,
        responseType: 'text',
        timeout: { request: timeoutMs },
      });
      let json: unknown;
      try {
        json = res.body ? JSON.parse(res.body) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, headers: res.headers, json };
    } catch (err) {
      if (err instanceof TimeoutError) throw new BotPlatformError('timeout', describeTimeout(timeoutMs));
      const code = err instanceof RequestError ? err.code : undefined;
      throw new BotPlatformError('network', `Could not reach the bot platform${code ? ` (${code})` : ''}`);
    }
  };
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Contract §5: `retry-after` in seconds (or an HTTP date), else `x-ratelimit-reset` in epoch seconds. */
export function retryAfterMs(headers: PlatformAnswer['headers'], now = Date.now()): number | undefined {
  const retryAfter = header(headers['retry-after'])?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = header(headers['x-ratelimit-reset'])?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return undefined;
}

/** The platform's own `{message}`, shortened, with the token cut out should a platform ever echo it. */
export function platformMessage(answer: PlatformAnswer, token: string): string | undefined {
  const json = answer.json;
  const message = typeof json === 'object' && json !== null && 'message' in json ? json.message : undefined;
  if (typeof message !== 'string' || message.trim() === '') return undefined;
  const safe = token ? message.split(token).join('[redacted]') : message;
  return safe.length > MAX_MESSAGE ? `${safe.slice(0, MAX_MESSAGE)}…` : safe;
}

/** Turns a non-2xx (or unusable 2xx) answer into a typed error. `action` reads like "creating the subscriber". */
export function errorFromAnswer(answer: PlatformAnswer, action: string, token: string): BotPlatformError {
  const { status } = answer;
  const said = platformMessage(answer, token);
  // A non-JSON answer: on 5xx usually a proxy's error page in front of the platform; otherwise the
  // base URL probably points at the website rather than the API.
  const page = status >= 500 ? ': answered with a non-JSON error page' : ': answered with a non-JSON page (check the base URL)';
  const suffix = said ? `: ${said}` : answer.json === undefined && status >= 300 ? page : '';
  if (status === 401) return new BotPlatformError('unauthorized', `Bot platform rejected the access token while ${action} (HTTP 401)`, status);
  if (status === 429) return new BotPlatformError('rate_limited', `Bot platform rate limit reached while ${action} (HTTP 429)${suffix}`, status, retryAfterMs(answer.headers));
  if (status >= 500) return new BotPlatformError('server', `Bot platform failed while ${action} (HTTP ${status})${suffix}`, status);
  if (status === 404) return new BotPlatformError('not_found', `Bot platform found nothing while ${action} (HTTP 404)${suffix}`, status);
  if (status >= 200 && status < 300) return new BotPlatformError('rejected', `Bot platform gave an unexpected answer while ${action} (HTTP ${status})${suffix}`, status);
  return new BotPlatformError('rejected', `Bot platform rejected ${action} (HTTP ${status})${suffix}`, status);
}
