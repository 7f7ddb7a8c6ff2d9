import { GleanerApiError, GleanerJobFailedError, GleanerTimeoutError } from './errors.js';
import type {
  AccountUsage,
  ApiErrorBody,
  ParseCompleted,
  ParseRequest,
  ParseStatus,
  ParseSubmitResponse,
  ScrapeBasicResult,
  ScrapeCompletedStatus,
  ScrapeLlmResult,
  ScrapeRequest,
  ScrapeStatus,
  ScrapeSubmitResponse,
} from './types.js';

export interface GleanerClientOptions {
  /** Gateway base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch (Node 18+, browsers). */
  fetch?: typeof fetch;
}

export interface WaitOptions<Progress> {
  /** Give up waiting after this long (the request itself goes on). Default 10 minutes. */
  timeoutMs?: number;
  /** Status poll interval; the first poll comes after at most 5 s. Default 10 s. */
  pollMs?: number;
  /** Called after every poll that finds the request still running. */
  onProgress?: (progress: Progress) => void;
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

/** SPEC "Limits": parser polling for at most 10 minutes, first check after 5 s, then every 10 s. */
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_POLL_MS = 10_000;
const FIRST_POLL_MS = 5_000;

/**
 * Typed client of the Gleaner API. Submits answer at once when the work finishes inside the
 * gateway's 20 s window; the `…AndWait` methods follow a 202 by polling the status endpoint.
 */
export class GleanerClient {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetchImpl: typeof fetch;

  constructor(options: GleanerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** POST /web-scrapper/: the result (status "completed") or, after 20 s, a 202 (status "processing"). */
  scrape(request: ScrapeRequest): Promise<ScrapeSubmitResponse> {
    return this.call('POST', '/web-scrapper/', request);
  }

  getScrape(requestId: string): Promise<ScrapeStatus> {
    return this.call('GET', `/web-scrapper/${encodeURIComponent(requestId)}`);
  }

  /**
   * Submits and waits for the end. Resolves with the status-endpoint shape (`content`, plus
   * `llm_output` in LLM mode) whichever way the result arrived; a request that ends failed
   * rejects with GleanerJobFailedError.
   */
  async scrapeAndWait(request: ScrapeRequest, options: WaitOptions<ScrapeProgress> = {}): Promise<ScrapeCompletedStatus> {
    const started = Date.now();
    const submitted = await this.scrape(request);
    if (submitted.status === 'completed') return asCompletedStatus(submitted);
    const requestId = submitted.request_id;
    return this.waitFor(requestId, started, options, async () => {
      const status = await this.getScrape(requestId);
      if (status.status === 'completed') return status;
      if (status.status === 'failed') throw new GleanerJobFailedError(requestId, status.error);
      options.onProgress?.({ requestId, status: status.status, elapsedMs: Date.now() - started });
      return null;
    });
  }

  /** POST /documents/parse: COMPLETED with the text or, after 20 s, PROCESSING. */
  parse(request: ParseRequest): Promise<ParseSubmitResponse> {
    return this.call('POST', '/documents/parse', request);
  }

  getParse(requestId: string): Promise<ParseStatus> {
    return this.call('GET', `/documents/status/${encodeURIComponent(requestId)}`);
  }

  /** Submits and waits for COMPLETED, reporting pages done/total while the parser works. */
  async parseAndWait(request: ParseRequest, options: WaitOptions<ParseProgress> = {}): Promise<ParseCompleted> {
    const started = Date.now();
    const submitted = await this.parse(request);
    if (submitted.status === 'COMPLETED') return submitted;
    const requestId = submitted.requestId;
    return this.waitFor(requestId, started, options, async () => {
      const status = await this.getParse(requestId);
      if (status.status === 'COMPLETED') return { requestId, status: 'COMPLETED', data: status.data ?? '', type: status.type, ...(status.pages !== undefined ? { pages: status.pages } : {}) } satisfies ParseCompleted;
      if (status.status === 'FAILED') throw new GleanerJobFailedError(requestId, status.error ?? '500-001: Processing error', status.details);
      const pages = status.pagesTotal !== undefined ? { pagesDone: status.pagesDone ?? 0, pagesTotal: status.pagesTotal } : {};
      options.onProgress?.({ requestId, status: 'PROCESSING', ...pages, elapsedMs: Date.now() - started });
      return null;
    });
  }

  /** GET /account/usage (the key needs the account scope). */
  usage(): Promise<AccountUsage> {
    return this.call('GET', '/account/usage');
  }

  private async waitFor<T>(requestId: string, started: number, options: Pick<WaitOptions<never>, 'timeoutMs' | 'pollMs'>, check: () => Promise<T | null>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const pollMs = Math.max(1, options.pollMs ?? DEFAULT_POLL_MS);
    let delay = Math.min(FIRST_POLL_MS, pollMs);
    for (;;) {
      const remaining = started + timeoutMs - Date.now();
      if (remaining <= 0) throw new GleanerTimeoutError(requestId, Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, remaining)));
      const done = await check();
      if (done) return done;
      delay = pollMs;
    }
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': this.apiKey, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetchImpl(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      // A proxy in front of the gateway may answer HTML; keep its text as the error.
      const errorBody = isErrorBody(parsed) ? parsed : { error: text.slice(0, 500) || res.statusText };
      throw new GleanerApiError(res.status, errorBody, res.headers.get('x-request-id'));
    }
    if (parsed === undefined) throw new GleanerApiError(res.status, { error: `expected a JSON body, got: ${text.slice(0, 200)}` }, res.headers.get('x-request-id'));
    return parsed as T;
  }
}

function isErrorBody(value: unknown): value is ApiErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string';
}

/** A submit's immediate result in the status endpoint's shape, so waiting callers see one shape. */
function asCompletedStatus(result: ScrapeBasicResult | ScrapeLlmResult): ScrapeCompletedStatus {
  const head = { request_id: result.request_id, url: result.url, status: 'completed' as const, timestamp: result.timestamp };
  if ('content' in result) return { ...head, content: result.content, llm_output: result.llm_output, ...(result.llm_input_truncated ? { llm_input_truncated: true as const } : {}) };
  const { text_content: text, markdown_content: markdown, meta, links, images } = result;
  return { ...head, content: { text, ...(markdown !== undefined ? { markdown } : {}), meta, links, images } };
}
