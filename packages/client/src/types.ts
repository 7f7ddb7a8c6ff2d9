/** Request and response shapes of the Gleaner API (README "API reference"; GET /openapi.json). */

// ── Current scraper `/web-scrapper/` ──────────────────────────────────────────────────────────

export interface ScrapeRequest {
  url: string;
  output_type?: 'plaintext' | 'markdown';
  /** Return the cached result for this URL (15 days); every other field is then ignored. */
  use_cache?: boolean;
  /** Public HTTPS URL notified when the request ends. */
  webhook?: string | null;
  use_llm?: boolean;
  prompt?: string;
  /** A key registered with POST /account/llm-keys; the newest one when absent. */
  llm_key_id?: string | null;
  /** JSON Schema that llm_output must follow (LLM mode). */
  schema?: Record<string, unknown>;
  /** Labels echoed in the status record and webhook deliveries (at most 10). */
  tags?: string[];
  /** Render the page in Chromium: 'auto' (default) when it looks client-rendered, true always, false never. */
  render_js?: 'auto' | boolean;
  /** Milliseconds to wait after the page loaded and settled (rendering; at most 30000, less than timeout). */
  wait_for?: number;
  /** CSS selector the rendered page must contain before it is read. */
  wait_for_selector?: string;
  /** Milliseconds the page may take, static or rendered (1000 to 120000; default 30000). */
  timeout?: number;
}

export interface PageMeta {
  title: string;
  description: string;
  language?: string;
  canonical_url?: string;
  site_name?: string;
  author?: string;
  published_time?: string;
  modified_time?: string;
  keywords?: string[];
  favicon?: string;
  og_image?: string;
  og?: Record<string, string>;
  twitter?: Record<string, string>;
  status_code?: number;
  content_type?: string;
  final_url?: string;
  /** True when the text was read from the page rendered in Chromium. */
  rendered?: boolean;
  /** render_js 'auto' only: why rendering failed and the static page was kept. */
  render_error?: string;
  [field: string]: unknown;
}

export interface PageLink {
  text: string;
  url: string;
  type: 'internal' | 'external' | 'mailto' | 'tel';
}

export interface PageImage {
  url: string;
  alt: string;
}

export interface ScrapeContent {
  text: string;
  /** When output_type was markdown. */
  markdown?: string;
  meta: PageMeta;
  links: PageLink[];
  images: PageImage[];
}

interface ScrapeHead {
  request_id: string;
  url: string;
  /** Unix seconds. */
  timestamp: number;
  /** The request's tags, when it was given some. */
  tags?: string[];
}

/** 200 of a basic-mode submit. */
export interface ScrapeBasicResult extends ScrapeHead {
  status: 'completed';
  text_content: string;
  markdown_content?: string;
  meta: PageMeta;
  links: PageLink[];
  images: PageImage[];
  cached?: true;
}

/** 200 of an LLM-mode submit. */
export interface ScrapeLlmResult extends ScrapeHead {
  status: 'completed';
  content: ScrapeContent;
  llm_output: Record<string, unknown>;
  /** Present only when the page was trimmed to the model's input budget. */
  llm_input_truncated?: true;
  cached?: true;
}

/** 202: still processing after the 20 s window. */
export interface ScrapeAccepted {
  request_id: string;
  url: string;
  status: 'processing';
  message: string;
}

export type ScrapeSubmitResponse = ScrapeBasicResult | ScrapeLlmResult | ScrapeAccepted;

export interface ScrapeProcessingStatus extends ScrapeHead {
  status: 'received' | 'processing';
}

/** A completed request as the status endpoint shows it (also what scrapeAndWait resolves with). */
export interface ScrapeCompletedStatus extends ScrapeHead {
  status: 'completed';
  content: ScrapeContent;
  llm_output?: Record<string, unknown>;
  /** Present only when the page was trimmed to the model's input budget. */
  llm_input_truncated?: true;
  /** A cached result (`use_cache`). */
  cached?: true;
}

export interface ScrapeFailedStatus extends ScrapeHead {
  status: 'failed';
  /** "CODE: message". */
  error: string;
  /** Only when the service runs in development mode. */
  error_trace?: string;
}

export type ScrapeStatus = ScrapeProcessingStatus | ScrapeCompletedStatus | ScrapeFailedStatus;

// ── Whole sites: crawl, batch, map `/web-scrapper/crawl|batch|map` ─────────────────────────────

/** The per-page options of a scrape, applied to every page of a crawl or batch. */
export type PageOptions = Pick<ScrapeRequest, 'output_type' | 'use_llm' | 'prompt' | 'llm_key_id' | 'schema' | 'tags' | 'render_js' | 'wait_for' | 'wait_for_selector' | 'timeout'>;

/** Which URLs a crawl or map follows. */
export interface SiteScope {
  /** Regular expressions tested on each URL's path: only matching paths are followed. */
  include_paths?: string[];
  exclude_paths?: string[];
  allow_subdomains?: boolean;
  allow_external?: boolean;
  /** include (default): sitemaps add URLs; skip: links only; only: sitemap URLs only. */
  sitemap?: 'include' | 'skip' | 'only';
  ignore_query?: boolean;
}

export interface CrawlRequest extends PageOptions, SiteScope {
  url: string;
  /** Pages read at most (default 100); never exceeded. */
  limit?: number;
  /** Link hops from the start URL (sitemap URLs are 0). */
  max_depth?: number;
  /** Requests to one host at once (default 5). */
  max_concurrency?: number;
  /** Sent crawl.page runs and crawl.completed / crawl.cancelled / crawl.failed. */
  webhook?: string | null;
}

export interface BatchRequest extends PageOptions {
  urls: string[];
  max_concurrency?: number;
  webhook?: string | null;
}

export interface CrawlAccepted {
  request_id: string;
  status: 'processing';
  url?: string;
  urls?: number;
}

export type CrawlStatusName = 'processing' | 'completed' | 'cancelled' | 'failed';

export interface CrawlCounts {
  discovered: number;
  queued: number;
  processing: number;
  completed: number;
  failed: number;
  skipped: number;
  /** robots, other_host, excluded_path, not_included_path, depth, file, duplicate, not_html, url_cap, redirect_out_of_scope. */
  skipped_by: Record<string, number>;
}

/** One listed result: a page as a single scrape gives it, or why it is not one. */
export type CrawlPage =
  | { url: string; status: 'completed'; depth?: number; content: ScrapeContent; llm_output?: Record<string, unknown>; llm_input_truncated?: true }
  | { url: string; status: 'failed'; depth?: number; error: string }
  | { url: string; status: 'skipped'; reason: string };

export interface CrawlStatus {
  request_id: string;
  status: CrawlStatusName;
  url?: string;
  created_at: number;
  completed_at?: number;
  tags?: string[];
  /** Once ended: why. */
  reason?: string;
  /** Failed: "CODE: message". */
  error?: string;
  counts: CrawlCounts;
  /** Results from the cursor on. */
  pages: CrawlPage[];
  /** Cursor of the next read; null once ended and these are the last results. */
  next: string | null;
}

export interface MapRequest extends SiteScope {
  url: string;
  /** Links answered at most (default 5000). */
  limit?: number;
  tags?: string[];
}

export interface MapLink {
  url: string;
  title?: string;
}

export interface MapStatus {
  request_id: string;
  status: CrawlStatusName;
  url: string;
  tags?: string[];
  links?: MapLink[];
  error?: string;
}

// ── Deprecated v1 scraper `/v1/llm-web-scrapper` ───────────────────────────────────────────────

/** A v1 submit. Basic mode (`use_llm` false): the elements `selector` matches (CSS, or XPath when it starts with `/`, `./` or `(`). */
export interface SelectRequest {
  url: string;
  /** No selector: the whole page. */
  selector?: string;
  use_llm?: boolean;
  /** LLM mode: what to extract. */
  prompt?: string;
  webhook?: string | null;
}

/** The matched elements: their outer HTML and their text, each joined by newlines. */
export interface ScrapedContent {
  html: string;
  text: string;
}

/** 200 of a v1 submit: `scraped_content` (basic mode) or `llm_json_structure` (LLM mode). */
export interface SelectResult {
  request_id: string;
  scraped_content?: ScrapedContent;
  llm_json_structure?: Record<string, unknown>;
}

/** 202 of a v1 submit: still running after the 20 s window. */
export interface SelectAccepted {
  request_id: string;
  status: 'processing';
}

export type SelectSubmitResponse = SelectResult | SelectAccepted;

/** GET /v1/llm-web-scrapper/{id}: at most 3 reads per request id (the fourth answers 429). */
export interface SelectStatus extends SelectResult {
  status: 'pending' | 'processing' | 'completed' | 'failed';
  /** Failed: the HTTP status the submit would have answered, and why. */
  status_code?: number;
  details?: string;
}

// ── Document parser `/documents` ─────────────────────────────────────────────────────────────

/** The parser's `type` values (SPEC; the image guide adds tiff, tif, heic). */
export const DOCUMENT_TYPES = ['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic', 'xlsx', 'xls', 'ods', 'csv', 'pptx', 'odp', 'odt', 'rtf', 'epub', 'html', 'md'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export interface ParseRequest {
  url: string;
  /** A hint: the real kind is detected from the bytes. Default pdf. */
  type?: DocumentType;
  output?: 'plain' | 'markdown';
  webhook?: string;
  /** Labels echoed in the status record and webhook deliveries (at most 10). */
  tags?: string[];
}

/** A document sent with parseFile: its file name (the type hint when no `type` is given) and its bytes. */
export interface UploadedDocument {
  name: string;
  /** At most 50 MB. */
  data: Blob | Uint8Array;
}

/** The fields sent with an upload; the same as ParseRequest's, without `url`. */
export type ParseFileOptions = Omit<ParseRequest, 'url'>;

/** 200 of a submit, and what parseAndWait resolves with. */
export interface ParseCompleted {
  requestId: string;
  status: 'COMPLETED';
  /** Unix seconds (in a submit's answer since issue 36, as in the status record). */
  createdAt?: number;
  /** The request's tags, when it was given some. */
  tags?: string[];
  /** Pages joined with "\n\n=== Page Break ===\n\n". */
  data: string;
  type: string;
  pages?: number;
  /** Text files: the decoder used. */
  encoding?: string;
}

export interface ParseAccepted {
  requestId: string;
  status: 'PROCESSING';
  message: string;
}

export type ParseSubmitResponse = ParseCompleted | ParseAccepted;

export interface ParseStatus {
  requestId: string;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  type: string;
  /** Unix seconds. */
  createdAt: number;
  /** The document's URL, or an uploaded document's file name. */
  url?: string;
  fileName?: string;
  tags?: string[];
  data?: string;
  pages?: number;
  encoding?: string;
  message?: string;
  pagesDone?: number;
  pagesTotal?: number;
  error?: string;
  details?: string[];
  webhookError?: string;
}

// ── Account ─────────────────────────────────────────────────────────────────────────────────

/** GET /account: the account and the key that asked. */
export interface AccountInfo {
  account_id: string;
  name: string;
  key_id: string;
  scopes: string[];
}

/** GET /account/llm-keys: a registered language-model key, its secret masked. */
export interface LlmKeySummary {
  id: string;
  provider: string;
  model?: string;
  label?: string;
  masked: string;
  createdAt: number;
}

/** The families a webhook subscription can follow. */
export type WebhookFamily = 'scrape' | 'scrape-v1' | 'parse' | 'crawl' | 'batch' | 'map';

/** An account-level webhook subscription (`/account/webhooks`): every finished request of its families is delivered to `url`. */
export interface WebhookSubscription {
  id: string;
  url: string;
  families: WebhookFamily[];
  /** Unix seconds. */
  created_at: number;
}

export interface AccountUsage {
  credits_used: number;
  requests: { scrape: number; 'scrape-v1': number; parse: number; crawl: number; batch: number; map: number };
  llm_tokens: { input: number; output: number };
  rate_limit_per_minute: number;
}

// ── Errors ──────────────────────────────────────────────────────────────────────────────────

/** Scraper and /account errors: `{error: "E003: message"}`. */
export interface ScraperErrorBody {
  error: string;
  /** Only when there is more to say (a 403 names the scope the key lacks). */
  details?: string[];
}

/** Parser errors: `{error: "400-002: Invalid URL format", details: [...]}`. */
export interface ParserErrorBody {
  error: string;
  details: string[];
  requestId?: string;
}

/**
 * What a failed call answered: the family's error body, or (a request that failed inside the
 * 20 s window) its failed result. Bodies that are not JSON arrive as `{error: <text>}`.
 */
export type ApiErrorBody = ScraperErrorBody | ParserErrorBody | ScrapeFailedStatus;
