/**
 * The transport-agnostic core of the Gleaner client: request building, response and error typing,
 * and following a 202 on its status endpoint. It performs no I/O and reads no globals (no fetch, no
 * timers, no process): the caller injects `send` and `sleep`. The fetch-based `GleanerClient` (CLI,
 * scripts) and the n8n nodes (n8n's own HTTP helper and `sleep`; community nodes may use neither
 * fetch nor setTimeout) are both built on it.
 */
import { GleanerApiError, GleanerJobFailedError, GleanerProtocolError, GleanerTimeoutError } from './errors.js';
import type {
  AccountInfo,
  AccountUsage,
  ApiErrorBody,
  BatchRequest,
  CrawlAccepted,
  CrawlPage,
  CrawlRequest,
  CrawlStatus,
  LlmKeySummary,
  MapRequest,
  MapStatus,
  ParseCompleted,
  ParseFileOptions,
  ParseRequest,
  ParseStatus,
  ParseSubmitResponse,
  ScrapeBasicResult,
  ScrapeCompletedStatus,
  ScrapeLlmResult,
  ScrapeRequest,
  ScrapeStatus,
  ScrapeSubmitResponse,
  SelectRequest,
  SelectStatus,
  SelectSubmitResponse,
  UploadedDocument,
  WebhookFamily,
  WebhookSubscription,
} from './types.js';

/** One call as the core describes it; the transport adds the base URL and the API key. */
export interface GleanerHttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path from the gateway's root, e.g. `/web-scrapper/`. */
  path: string;
  /** Sent as JSON. */
  body?: object;
  /** Sent as multipart/form-data instead (document uploads); see encodeMultipart. */
  form?: UploadForm;
  /** Headers of the call itself (`Prefer`); the transport adds its own. */
  headers?: Record<string, string>;
}

/** A multipart/form-data body: text fields and one file part. */
export interface UploadForm {
  fields: Record<string, string>;
  file: { field: string; name: string; data: Blob | Uint8Array };
}

export interface GleanerHttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; the text when it is not JSON; undefined when empty. */
  body: unknown;
}

/** Performs one call. Error statuses must come back as responses, not be thrown. */
export type SendRequest = (request: GleanerHttpRequest) => Promise<GleanerHttpResponse>;
export type Sleep = (ms: number) => Promise<void>;

export interface GleanerCoreOptions {
  send: SendRequest;
  sleep: Sleep;
}

export interface WaitOptions<Progress> {
  /** Give up waiting after this long (the request itself goes on). Default 10 minutes. */
  timeoutMs?: number;
  /** Status poll interval; the first poll comes after at most 5 s. Default 10 s. */
  pollMs?: number;
  /** Called after every poll that finds the request still running. */
  onProgress?: (progress: Progress) => void;
  /**
   * Ask for the request id at once (`Prefer: respond-async`, answered 202 without waiting out the
   * gateway's 20 s window) and follow the request with status reads that each wait up to this
   * many seconds for its end (`Prefer: wait`): the result comes as soon as the request ends, and
   * `onAccepted` has the id before. Reads follow one another without a pause while the gateway
   * honours the wait (one that does not is polled every pollMs).
   */
  waitSeconds?: number;
  /** Called with the request id as soon as the submit answered (before the wait for the result). */
  onAccepted?: (requestId: string) => void;
}

/** RFC 7240 preferences of a submit and of a status read (see WaitOptions.waitSeconds). */
export interface SubmitPreferences {
  /** Answer 202 with the request id at once. */
  respondAsync?: boolean;
}
export interface StatusPreferences {
  /** While the request runs, wait up to this many seconds (at most the gateway's window) for its end. */
  waitSeconds?: number;
}

export interface ScrapeProgress {
  requestId: string;
  status: 'received' | 'processing';
  elapsedMs: number;
}

export interface ParseProgress {
  requestId: string;
  status: 'PROCESSING';
  /** Present once the parser knows the page count (multi-page documents). */
  pagesDone?: number;
  pagesTotal?: number;
  elapsedMs: number;
}

/** What a crawl or batch has done so far, after each status read of `crawlAndWait`. */
export interface CrawlProgress {
  requestId: string;
  counts: CrawlStatus['counts'];
  elapsedMs: number;
}

export interface CrawlWaitOptions extends WaitOptions<CrawlProgress> {
  /** Called with each result as it is read, in order (the status endpoint is read from a cursor). */
  onPage?: (page: CrawlPage) => void | Promise<void>;
}

/** A completed parse as the status endpoint shows it. */
export type ParseCompletedStatus = ParseStatus & { status: 'COMPLETED' };

/** SPEC "Limits": parser polling for at most 10 minutes, first check after 5 s, then every 10 s. */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_POLL_MS = 10_000;
const FIRST_POLL_MS = 5_000;

/**
 * Typed calls of the Gleaner API. Submits answer at once when the work finishes inside the
 * gateway's 20 s window; `follow…` waits for a request answered 202 and resolves with its final
 * status record, unchanged; the `…AndWait` methods do both.
 */
export class GleanerCore {
  private readonly send: SendRequest;
  private readonly sleep: Sleep;

  constructor(options: GleanerCoreOptions) {
    this.send = options.send;
    this.sleep = options.sleep;
  }

  /** POST /web-scrapper/: the result (status "completed") or, after 20 s, a 202 (status "processing"). */
  scrape(request: ScrapeRequest, preferences: SubmitPreferences = {}): Promise<ScrapeSubmitResponse> {
    return this.call('POST', '/web-scrapper/', request, undefined, submitHeaders(preferences));
  }

  getScrape(requestId: string, preferences: StatusPreferences = {}): Promise<ScrapeStatus> {
    return this.call('GET', `/web-scrapper/${encodeURIComponent(requestId)}`, undefined, undefined, statusHeaders(preferences));
  }

  /**
   * Polls a scrape until it completes; resolves with the completed status record. A request that
   * ends failed rejects with GleanerJobFailedError, a wait that runs out with GleanerTimeoutError.
   */
  followScrape(requestId: string, options: WaitOptions<ScrapeProgress> = {}, accepted: object = {}): Promise<ScrapeCompletedStatus> {
    return this.pollScrape(requestId, Date.now(), options, accepted);
  }

  private pollScrape(requestId: string, started: number, options: WaitOptions<ScrapeProgress>, accepted: object): Promise<ScrapeCompletedStatus> {
    return this.follow<ScrapeCompletedStatus>(requestId, started, options, accepted, async (waitSeconds) => {
      const status = await this.getScrape(requestId, { waitSeconds });
      if (status.status === 'completed') return { done: status };
      if (status.status === 'failed') throw new GleanerJobFailedError(requestId, status.error, [], status);
      options.onProgress?.({ requestId, status: status.status, elapsedMs: Date.now() - started });
      return { latest: status };
    });
  }

  /**
   * Submits and waits for the end. Resolves with the status-endpoint shape (`content`, plus
   * `llm_output` in LLM mode) whichever way the result arrived.
   */
  async scrapeAndWait(request: ScrapeRequest, options: WaitOptions<ScrapeProgress> = {}): Promise<ScrapeCompletedStatus> {
    const started = Date.now();
    const submitted = await this.scrape(request, { respondAsync: options.waitSeconds !== undefined });
    options.onAccepted?.(submitted.request_id);
    if (submitted.status === 'completed') return asCompletedStatus(submitted);
    return this.pollScrape(submitted.request_id, started, options, submitted);
  }

  /** POST /web-scrapper/crawl: a site's pages, in the background (202 at once). */
  crawl(request: CrawlRequest): Promise<CrawlAccepted> {
    return this.call('POST', '/web-scrapper/crawl', request);
  }

  /** POST /web-scrapper/batch: many URLs with the same options, in the background. */
  batch(request: BatchRequest): Promise<CrawlAccepted> {
    return this.call('POST', '/web-scrapper/batch', request);
  }

  /**
   * GET /web-scrapper/{crawl|batch}/{id}: its state and results from `cursor` on, at most `limit`
   * of them (default 100; 0: the state and counts alone).
   */
  getCrawl(requestId: string, cursor?: string | null, kind: 'crawl' | 'batch' = 'crawl', limit?: number): Promise<CrawlStatus> {
    const query = [...(cursor ? [`cursor=${encodeURIComponent(cursor)}`] : []), ...(limit !== undefined ? [`limit=${limit}`] : [])];
    return this.call('GET', `/web-scrapper/${kind}/${encodeURIComponent(requestId)}${query.length ? `?${query.join('&')}` : ''}`);
  }

  /** DELETE /web-scrapper/{crawl|batch}/{id}: stops it, keeping what it read; its state (no results). */
  cancelCrawl(requestId: string, kind: 'crawl' | 'batch' = 'crawl'): Promise<CrawlStatus> {
    return this.call('DELETE', `/web-scrapper/${kind}/${encodeURIComponent(requestId)}`);
  }

  /**
   * Follows a crawl or batch to its end, reading its results as they are listed (each handed to
   * `onPage`), and resolves with its final status (its last page of results in `pages`). A crawl
   * that ends failed rejects with GleanerJobFailedError; cancelled resolves (its status says so).
   */
  async followCrawl(requestId: string, options: CrawlWaitOptions = {}, kind: 'crawl' | 'batch' = 'crawl'): Promise<CrawlStatus> {
    const started = Date.now();
    let cursor: string | null = '0';
    return this.follow<CrawlStatus>(requestId, started, { ...options, pollMs: options.pollMs ?? 2_000 }, {}, async () => {
      for (;;) {
        const status: CrawlStatus = await this.getCrawl(requestId, cursor, kind);
        for (const page of status.pages) await options.onPage?.(page);
        cursor = status.next;
        if (status.next === null) {
          if (status.status === 'failed') throw new GleanerJobFailedError(requestId, status.error ?? 'the crawl failed', [], status);
          return { done: status };
        }
        // More results are listed already: read on without waiting.
        if (status.pages.length > 0 && status.status === 'processing') continue;
        if (status.pages.length === 0 || status.status === 'processing') {
          options.onProgress?.({ requestId, counts: status.counts, elapsedMs: Date.now() - started });
          return { latest: status };
        }
      }
    });
  }

  /** Starts a crawl and follows it (see followCrawl). */
  async crawlAndWait(request: CrawlRequest, options: CrawlWaitOptions = {}): Promise<CrawlStatus> {
    const accepted = await this.crawl(request);
    return this.followCrawl(accepted.request_id, options);
  }

  /** POST /web-scrapper/map: the site's links when found within 20 s (status completed), else processing. */
  map(request: MapRequest, preferences: SubmitPreferences = {}): Promise<MapStatus> {
    return this.call('POST', '/web-scrapper/map', request, undefined, submitHeaders(preferences));
  }

  getMap(requestId: string, preferences: StatusPreferences = {}): Promise<MapStatus> {
    return this.call('GET', `/web-scrapper/map/${encodeURIComponent(requestId)}`, undefined, undefined, statusHeaders(preferences));
  }

  /** Maps a site and waits for its links (with `waitSeconds`, as scrapeAndWait: the id at once, then reads that wait for the end). */
  async mapAndWait(request: MapRequest, options: WaitOptions<{ requestId: string; elapsedMs: number }> = {}): Promise<MapStatus> {
    const started = Date.now();
    const submitted = await this.map(request, { respondAsync: options.waitSeconds !== undefined });
    options.onAccepted?.(submitted.request_id);
    if (submitted.status === 'completed') return submitted;
    if (submitted.status === 'failed') throw new GleanerJobFailedError(submitted.request_id, submitted.error ?? 'the map failed', [], submitted);
    return this.follow<MapStatus>(submitted.request_id, started, options, submitted, async (waitSeconds) => {
      const status = await this.getMap(submitted.request_id, { waitSeconds });
      if (status.status === 'completed') return { done: status };
      if (status.status === 'failed') throw new GleanerJobFailedError(submitted.request_id, status.error ?? 'the map failed', [], status);
      options.onProgress?.({ requestId: submitted.request_id, elapsedMs: Date.now() - started });
      return { latest: status };
    });
  }

  /** POST /v1/llm-web-scrapper/ (deprecated v1): the matched elements or, after 20 s, a 202 (status "processing"). */
  select(request: SelectRequest): Promise<SelectSubmitResponse> {
    return this.call('POST', '/v1/llm-web-scrapper/', request);
  }

  /** GET /v1/llm-web-scrapper/{id}: each request id may be read at most 3 times. */
  getSelect(requestId: string): Promise<SelectStatus> {
    return this.call('GET', `/v1/llm-web-scrapper/${encodeURIComponent(requestId)}`);
  }

  /** POST /documents/parse: COMPLETED with the text or, after 20 s, PROCESSING. */
  parse(request: ParseRequest, preferences: SubmitPreferences = {}): Promise<ParseSubmitResponse> {
    return this.call('POST', '/documents/parse', request, undefined, submitHeaders(preferences));
  }

  getParse(requestId: string, preferences: StatusPreferences = {}): Promise<ParseStatus> {
    return this.call('GET', `/documents/status/${encodeURIComponent(requestId)}`, undefined, undefined, statusHeaders(preferences));
  }

  /** Polls a parse until COMPLETED, reporting pages done/total; resolves with the status record. */
  followParse(requestId: string, options: WaitOptions<ParseProgress> = {}, accepted: object = {}): Promise<ParseCompletedStatus> {
    return this.pollParse(requestId, Date.now(), options, accepted);
  }

  private pollParse(requestId: string, started: number, options: WaitOptions<ParseProgress>, accepted: object): Promise<ParseCompletedStatus> {
    return this.follow<ParseCompletedStatus>(requestId, started, options, accepted, async (waitSeconds) => {
      const status = await this.getParse(requestId, { waitSeconds });
      if (status.status === 'COMPLETED') return { done: status as ParseCompletedStatus };
      if (status.status === 'FAILED') throw new GleanerJobFailedError(requestId, status.error ?? '500-001: Processing error', status.details, status);
      const pages = status.pagesTotal !== undefined ? { pagesDone: status.pagesDone ?? 0, pagesTotal: status.pagesTotal } : {};
      options.onProgress?.({ requestId, status: 'PROCESSING', ...pages, elapsedMs: Date.now() - started });
      return { latest: status };
    });
  }

  /**
   * POST /documents/parse with the document itself (multipart/form-data, at most 50 MB): the
   * service stores it and parses it as it would a downloaded one. `file.data` may be a Blob read
   * from disk as it is sent (Node's `fs.openAsBlob`), or bytes already in memory.
   */
  parseFile(file: UploadedDocument, options: ParseFileOptions = {}, preferences: SubmitPreferences = {}): Promise<ParseSubmitResponse> {
    const fields: Record<string, string> = {};
    if (options.type) fields.type = options.type;
    if (options.output) fields.output = options.output;
    if (options.webhook) fields.webhook = options.webhook;
    if (options.tags?.length) fields.tags = options.tags.join(',');
    return this.call('POST', '/documents/parse', undefined, { fields, file: { field: 'file', name: file.name, data: file.data } }, submitHeaders(preferences));
  }

  /** parseFile, then waits as parseAndWait does. */
  parseFileAndWait(file: UploadedDocument, options: ParseFileOptions = {}, wait: WaitOptions<ParseProgress> = {}): Promise<ParseCompleted> {
    return this.completeParse(Date.now(), this.parseFile(file, options, { respondAsync: wait.waitSeconds !== undefined }), wait);
  }

  /** Submits and waits; resolves with the submit's COMPLETED shape whichever way the result arrived. */
  parseAndWait(request: ParseRequest, options: WaitOptions<ParseProgress> = {}): Promise<ParseCompleted> {
    return this.completeParse(Date.now(), this.parse(request, { respondAsync: options.waitSeconds !== undefined }), options);
  }

  private async completeParse(started: number, submitting: Promise<ParseSubmitResponse>, options: WaitOptions<ParseProgress>): Promise<ParseCompleted> {
    const submitted = await submitting;
    options.onAccepted?.(submitted.requestId);
    if (submitted.status === 'COMPLETED') return submitted;
    const { requestId, createdAt, tags, data, type, pages, encoding } = await this.pollParse(submitted.requestId, started, options, submitted);
    return { requestId, status: 'COMPLETED', createdAt, ...(tags ? { tags } : {}), data: data ?? '', type, ...(pages !== undefined ? { pages } : {}), ...(encoding ? { encoding } : {}) };
  }

  /** GET /account (scope `account`): a cheap authenticated read, e.g. to check a key. */
  account(): Promise<AccountInfo> {
    return this.call('GET', '/account');
  }

  /** GET /account/llm-keys (scope `account`): the account's language-model keys, secrets masked. */
  async listLlmKeys(): Promise<LlmKeySummary[]> {
    const { keys } = await this.call<{ keys?: unknown }>('GET', '/account/llm-keys');
    return Array.isArray(keys) ? keys.filter((k): k is LlmKeySummary => typeof (k as LlmKeySummary)?.id === 'string') : [];
  }

  /** GET /account/usage (scope `account`). */
  usage(): Promise<AccountUsage> {
    return this.call('GET', '/account/usage');
  }

  /** GET /account/webhook-secret: the secret that signs the account's webhook deliveries. */
  async webhookSecret(): Promise<string> {
    const { secret } = await this.call<{ secret?: unknown }>('GET', '/account/webhook-secret');
    if (typeof secret !== 'string' || secret === '') throw new GleanerProtocolError('Gleaner answered without a webhook secret', 200, null);
    return secret;
  }

  /** GET /account/webhooks; entries without an id, url and families list are left out. */
  async listWebhooks(): Promise<WebhookSubscription[]> {
    const { webhooks } = await this.call<{ webhooks?: unknown }>('GET', '/account/webhooks');
    return Array.isArray(webhooks) ? webhooks.filter(isSubscription) : [];
  }

  /** POST /account/webhooks: delivers every finished request of `families` to `url` (public HTTPS). */
  async createWebhook(url: string, families: WebhookFamily[]): Promise<WebhookSubscription> {
    const created = await this.call<unknown>('POST', '/account/webhooks', { url, families });
    if (!isSubscription(created)) throw new GleanerProtocolError('Gleaner created the subscription but its answer names no subscription ID', 201, null);
    return created;
  }

  /** DELETE /account/webhooks/{id}; `missing` when the service no longer has it. */
  async deleteWebhook(id: string): Promise<'deleted' | 'missing'> {
    try {
      await this.call('DELETE', `/account/webhooks/${encodeURIComponent(id)}`);
      return 'deleted';
    } catch (err) {
      if (err instanceof GleanerApiError && err.status === 404) return 'missing';
      throw err;
    }
  }

  /**
   * Reads the status until `read` reports the end or the time is spent; the last read happens at
   * the deadline, so a request that finishes just inside it is not reported as still running.
   * A rate limit (429) or a briefly unavailable store (503, or 5xx with Retry-After) is waited
   * out while time is left: the request itself is unaffected.
   */
  private async follow<T>(
    requestId: string,
    started: number,
    options: Pick<WaitOptions<never>, 'timeoutMs' | 'pollMs' | 'waitSeconds'>,
    accepted: object,
    read: (waitSeconds: number | undefined) => Promise<{ done: T } | { latest: object }>,
  ): Promise<T> {
    if (!requestId) throw new GleanerProtocolError('Gleaner accepted the request but named no request ID to follow', 202, null);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const pollMs = Math.max(1, options.pollMs ?? DEFAULT_POLL_MS);
    const waiting = options.waitSeconds !== undefined && options.waitSeconds > 0;
    let latest = accepted;
    // A read that waits for the end needs no pause before it; a plain poll does.
    let delay = waiting ? 0 : Math.min(FIRST_POLL_MS, pollMs);
    for (;;) {
      const remaining = started + timeoutMs - Date.now();
      if (remaining <= 0) throw new GleanerTimeoutError(requestId, Date.now() - started, latest);
      if (delay > 0) await this.sleep(Math.min(delay, remaining));
      const readAt = Date.now();
      const waitSeconds = waiting ? Math.max(1, Math.min(options.waitSeconds!, Math.ceil((started + timeoutMs - readAt) / 1000))) : undefined;
      let outcome: { done: T } | { latest: object };
      try {
        outcome = await read(waitSeconds);
        // A gateway that honours the wait took up to waitSeconds; one that does not answered at once and is polled.
        delay = waiting ? Math.max(0, pollMs - (Date.now() - readAt)) : pollMs;
      } catch (err) {
        const backOffMs = transientBackOffMs(err);
        if (backOffMs === null) throw err;
        delay = Math.max(backOffMs, pollMs);
        continue;
      }
      if ('done' in outcome) return outcome.done;
      latest = outcome.latest;
    }
  }

  private async call<T>(method: GleanerHttpRequest['method'], path: string, body?: object, form?: UploadForm, headers?: Record<string, string>): Promise<T> {
    const request: GleanerHttpRequest = form ? { method, path, form } : body === undefined ? { method, path } : { method, path, body };
    const res = await this.send(headers ? { ...request, headers } : request);
    const requestId = res.headers['x-request-id'] ?? null;
    if (res.status >= 400) throw new GleanerApiError(res.status, errorBodyOf(res), requestId, retryAfterSeconds(res.headers['retry-after']));
    if (res.status === 204) return undefined as T;
    if (typeof res.body !== 'object' || res.body === null) {
      throw new GleanerProtocolError(`expected a JSON body, got: ${String(res.body ?? '').slice(0, 200)}`, res.status, requestId);
    }
    return res.body as T;
  }
}

/**
 * A multipart/form-data body as bytes, for transports that send a buffer (the n8n nodes): fields
 * first, then the file. The boundary is random hex, and a field's value never holds CR or LF.
 */
export async function encodeMultipart(form: UploadForm, boundary: string): Promise<{ contentType: string; body: Uint8Array<ArrayBuffer> }> {
  const encoder = new TextEncoder();
  const quoted = (value: string) => value.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c));
  const parts: Uint8Array[] = [];
  for (const [name, value] of Object.entries(form.fields)) {
    parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value.replace(/[\r\n]/g, ' ')}\r\n`));
  }
  const { field, name, data } = form.file;
  parts.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(field)}"; filename="${quoted(name)}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
  parts.push(data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer()));
  parts.push(encoder.encode(`\r\n--${boundary}--\r\n`));
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

function submitHeaders(preferences: SubmitPreferences): Record<string, string> | undefined {
  return preferences.respondAsync ? { prefer: 'respond-async' } : undefined;
}

function statusHeaders(preferences: StatusPreferences): Record<string, string> | undefined {
  return preferences.waitSeconds ? { prefer: `wait=${Math.ceil(preferences.waitSeconds)}` } : undefined;
}

/** The wait before the next poll after an error worth waiting out, or null for any other error. */
function transientBackOffMs(err: unknown): number | null {
  if (!(err instanceof GleanerApiError)) return null;
  const retryAfterMs = (err.retryAfterSeconds ?? 0) * 1000;
  if (err.status === 429 || err.status === 503) return retryAfterMs;
  if (err.status >= 500 && err.retryAfterSeconds !== null) return retryAfterMs;
  return null;
}

function retryAfterSeconds(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** The family's error body; a proxy in front of the gateway may answer HTML: its text becomes the error. */
function errorBodyOf(res: GleanerHttpResponse): ApiErrorBody {
  const body = res.body;
  if (typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string') return body as ApiErrorBody;
  return { error: (typeof body === 'string' ? body.slice(0, 500) : '') || `HTTP ${res.status}` };
}

function isSubscription(value: unknown): value is WebhookSubscription {
  const candidate = value as Partial<WebhookSubscription> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.id === 'string' && typeof candidate.url === 'string' && Array.isArray(candidate.families);
}

/** A submit's immediate result in the status endpoint's shape, so waiting callers see one shape. */
export function asCompletedStatus(result: ScrapeBasicResult | ScrapeLlmResult): ScrapeCompletedStatus {
  const head = { request_id: result.request_id, url: result.url, status: 'completed' as const, timestamp: result.timestamp, ...(result.tags ? { tags: result.tags } : {}), ...(result.cached ? { cached: true as const } : {}) };
  if ('content' in result) return { ...head, content: result.content, llm_output: result.llm_output, ...(result.llm_input_truncated ? { llm_input_truncated: true as const } : {}) };
  const { text_content: text, markdown_content: markdown, meta, links, images } = result;
  return { ...head, content: { text, ...(markdown !== undefined ? { markdown } : {}), meta, links, images } };
}

export { GleanerApiError, GleanerJobFailedError, GleanerProtocolError, GleanerTimeoutError } from './errors.js';
export type * from './types.js';
