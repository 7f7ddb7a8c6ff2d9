/**
 * The tools' input schemas. The SDK turns them into the JSON Schemas clients see (tools/list) and
 * validates every call against them before a tool runs; descriptions are written for a model.
 */
import { z } from 'zod/v4';
import { DOCUMENT_TYPES, type CrawlRequest, type MapRequest, type ScrapeRequest } from '@gleaner/client';

/** Longest text a tool answers with unless asked otherwise: about 5,000 tokens. */
export const DEFAULT_MAX_LENGTH = 20_000;
/** scrape_many's cap for each page, so several pages fit together. */
export const DEFAULT_MAX_LENGTH_EACH = 5_000;
export const MAX_MAX_LENGTH = 200_000;
/** scrape_many takes at most this many URLs in one call. */
export const MAX_URLS = 20;
/** Pages a crawl reads unless asked otherwise: a model reads them in answers of max_length. */
export const DEFAULT_CRAWL_LIMIT = 20;
/** The API's own bounds (CRAWL_MAX_LIMIT, MAP_MAX_LINKS by default). */
export const MAX_CRAWL_LIMIT = 10_000;
export const DEFAULT_MAP_LIMIT = 1_000;
export const MAX_MAP_LIMIT = 30_000;

const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/\S+$/i, 'must be an http:// or https:// URL')
  .describe('Absolute http(s) URL.');

/**
 * The scrape API's own options (POST /web-scrapper/), named as the API names them and sent to it
 * unchanged by `scrapeRequest`: an option the API gains is one line here, for scrape and
 * scrape_many alike.
 */
export const scrapeApiOptions = {
  use_cache: z
    .boolean()
    .optional()
    .describe('Return the result Gleaner cached for this URL in the last 15 days instead of fetching the page again (faster, but possibly stale). Fails if nothing is cached.'),
  prompt: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe('LLM mode: an instruction for a language model that reads the page, e.g. "list every product with its price". The answer is the JSON it returns instead of the page text. Needs a language-model key registered on the Gleaner account.'),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('LLM mode only: a JSON Schema the extracted JSON must follow, e.g. {"type":"object","properties":{"price":{"type":"number"}}}.'),
  llm_key_id: z.string().min(1).max(200).optional().describe('LLM mode only: which of the account\'s language-model keys to use (default: the most recently added).'),
  render_js: z
    .union([z.literal('auto'), z.boolean()])
    .optional()
    .describe('Run the page in a headless browser first: "auto" (default) only when the page looks client-rendered (an app shell filled by script), true always (slower), false never.'),
  wait_for_selector: z.string().min(1).max(1000).optional().describe('Rendering: a CSS selector the page must contain before it is read (for content that appears late).'),
  wait_for: z.number().int().min(0).max(30_000).optional().describe('Rendering: milliseconds to wait after the page has loaded, before it is read.'),
  timeout: z.number().int().min(1_000).max(120_000).optional().describe('Milliseconds the page may take to load, static or rendered (default 30000).'),
};

/** How a page is shown to the model: not sent to Gleaner. */
const pagePresentation = {
  format: z.enum(['markdown', 'text']).default('markdown').describe('markdown keeps headings, lists, tables and links; text is plain text.'),
  include_links: z.boolean().default(false).describe("Also list the page's links (text, URL, internal or external)."),
  include_images: z.boolean().default(false).describe("Also list the page's images (URL and alt text)."),
};

function maxLength(defaultLength: number) {
  return z
    .number()
    .int()
    .min(100)
    .max(MAX_MAX_LENGTH)
    .default(defaultLength)
    .describe(`Longest answer, in characters, everything included: header, content, and links and images when asked for (default ${defaultLength}). Longer content is cut and the answer says how to read on.`);
}

export const scrapeInput = z.strictObject({
  url: httpUrl.describe('The web page to read (absolute http or https URL).'),
  ...scrapeApiOptions,
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export const scrapeManyInput = z.strictObject({
  urls: z
    .array(httpUrl)
    .min(1)
    .max(MAX_URLS)
    .describe(`The pages to read, 1 to ${MAX_URLS} absolute http(s) URLs. They are fetched a few at a time; a page that fails does not stop the others.`),
  ...scrapeApiOptions,
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH_EACH).describe(`Longest answer for each page, in characters, its links and images included (default ${DEFAULT_MAX_LENGTH_EACH}).`),
});

export const selectInput = z.strictObject({
  url: httpUrl.describe('The web page to read (absolute http or https URL). JavaScript is not run.'),
  selector: z
    .string()
    .min(1)
    .max(2000)
    .describe('Which elements to return: a CSS selector (e.g. "table.prices tr", "h2 + p") or an XPath expression when it starts with "/", "./" or "(" (e.g. "//a[@rel=\'next\']/@href").'),
  include_html: z.boolean().default(false).describe('Also return the outer HTML of the matched elements (only their text by default).'),
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

const pagesInput = z
  .string()
  .regex(/^\s*\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*$/, 'must be page numbers and ranges such as "3" or "1-3,7"')
  .optional();

export const parseDocumentInput = z.strictObject({
  url: httpUrl.describe('URL of the document or image: PDF (text or scanned), Word (doc, docx), RTF, Excel (xlsx, xls), CSV, PowerPoint (pptx), OpenDocument (odt, ods, odp), EPUB, HTML, markdown, image for OCR (jpg, png, tiff, heic) or text file.'),
  type: z
    .enum(DOCUMENT_TYPES)
    .optional()
    .describe('A hint of the file type; Gleaner detects the real type from the file itself, so leave it out unless the URL is ambiguous.'),
  format: z.enum(['markdown', 'text']).default('markdown').describe('markdown marks headings and lists; text is plain text.'),
  pages: pagesInput.describe('Only these pages of a multi-page document, 1-based, e.g. "1-3,7" (default: all pages, up to max_length).'),
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

const pathPatterns = z.array(z.string().min(1).max(500)).max(50).optional();

/** Which URLs a crawl or map follows: the API's fields, sent unchanged by `siteScopeOf`. */
export const siteScope = {
  include_paths: pathPatterns.describe('Only URLs whose path matches one of these JavaScript regular expressions, e.g. ["^/docs/"] (the start URL is always read).'),
  exclude_paths: pathPatterns.describe('Leave out URLs whose path matches one of these regular expressions, e.g. ["/archive/", "\\.pdf$"].'),
  allow_subdomains: z.boolean().optional().describe('Also follow links to subdomains of the start host (default: the start host only; www. and the bare host are one site).'),
  sitemap: z
    .enum(['include', 'skip', 'only'])
    .optional()
    .describe("include (default): also take the URLs of the site's sitemaps; skip: follow links only; only: the sitemaps' URLs, no links."),
  ignore_query: z.boolean().optional().describe('Treat URLs that differ only in their query string as one page.'),
};

/** The scrape options a crawl applies to each page (a crawl has no cache lookup). */
const { use_cache: _noCacheLookup, ...pageApiOptions } = scrapeApiOptions;

export const crawlInput = z.strictObject({
  url: httpUrl.describe('The start page (absolute http or https URL): its links are followed on the same site.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_CRAWL_LIMIT)
    .default(DEFAULT_CRAWL_LIMIT)
    .describe(`Pages to read at most (default ${DEFAULT_CRAWL_LIMIT}, up to ${MAX_CRAWL_LIMIT.toLocaleString('en-US')}); never exceeded.`),
  max_depth: z.number().int().min(0).max(1000).optional().describe('Link hops from the start page to follow at most (0: the start page and sitemap URLs only).'),
  ...siteScope,
  ...pageApiOptions,
  format: z.enum(['markdown', 'text']).default('markdown').describe('markdown keeps headings, lists, tables and links; text is plain text.'),
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export const mapInput = z.strictObject({
  url: httpUrl.describe("The site's start page (absolute http or https URL)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_MAP_LIMIT)
    .default(DEFAULT_MAP_LIMIT)
    .describe(`URLs to list at most (default ${DEFAULT_MAP_LIMIT.toLocaleString('en-US')}).`),
  ...siteScope,
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

const requestIdInput = z
  .string()
  // Both cases in the pattern itself: a JSON Schema pattern carries no flags.
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a Gleaner request ID (a UUID)');

export const cancelCrawlInput = z.strictObject({
  request_id: requestIdInput.describe('The request ID the crawl tool gave (in its first progress message and its answer).'),
  kind: z.enum(['crawl', 'batch']).default('crawl').describe('crawl, or batch for a batch started through the API.'),
});

export const getResultInput = z.strictObject({
  request_id: requestIdInput.describe('The request ID an earlier scrape, select, parse_document, crawl or map answer (or progress message) gave.'),
  kind: z
    .enum(['scrape', 'parse_document', 'select', 'crawl', 'batch', 'map'])
    .optional()
    .describe('Which tool made the request (batch: a batch started through the API); when left out, scrape, parse_document, crawl and map are tried in turn (select only when named: its status can be read 3 times).'),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, 'must be a cursor an earlier answer gave')
    .optional()
    .describe('crawl, batch and map: where to read on in the results, as a cut answer names it (default "0": from the first).'),
  start_index: z.number().int().min(0).default(0).describe('Character offset to start from, to read on where a cut answer stopped (crawl and batch: within the result at cursor).'),
  pages: pagesInput.describe('parse_document only: the pages the earlier answer showed ("1-3,7"), so that start_index reads on in them.'),
  ...pagePresentation,
  max_length: maxLength(DEFAULT_MAX_LENGTH),
});

export type ScrapeInput = z.infer<typeof scrapeInput>;
export type ScrapeManyInput = z.infer<typeof scrapeManyInput>;
export type SelectInput = z.infer<typeof selectInput>;
export type ParseDocumentInput = z.infer<typeof parseDocumentInput>;
export type GetResultInput = z.infer<typeof getResultInput>;
export type CrawlInput = z.infer<typeof crawlInput>;
export type MapInput = z.infer<typeof mapInput>;
export type PagePresentation = Pick<ScrapeInput, 'format' | 'include_links' | 'include_images' | 'max_length'>;

/** The scrape API request for one URL: every option of `scrapeApiOptions` as given, plus what the presentation implies. */
export function scrapeRequest(url: string, input: Partial<Record<keyof typeof scrapeApiOptions, unknown>> & { format: 'markdown' | 'text' }): ScrapeRequest {
  const passed = Object.fromEntries(Object.keys(scrapeApiOptions).flatMap((name) => (input[name as keyof typeof scrapeApiOptions] === undefined ? [] : [[name, input[name as keyof typeof scrapeApiOptions]]])));
  return {
    url,
    ...passed,
    output_type: input.format === 'text' ? 'plaintext' : 'markdown',
    ...(input.prompt !== undefined ? { use_llm: true } : {}),
  };
}

/** The scope fields as the API names them, those given only. */
function siteScopeOf(input: Partial<Record<keyof typeof siteScope, unknown>>): Partial<MapRequest> {
  return Object.fromEntries(Object.keys(siteScope).flatMap((name) => (input[name as keyof typeof siteScope] === undefined ? [] : [[name, input[name as keyof typeof siteScope]]])));
}

/** The crawl API request: the scope and every per-page option as given, the output the presentation implies. */
export function crawlRequest(input: CrawlInput): CrawlRequest {
  const { url, limit, max_depth, format, max_length: _shown, ...rest } = input;
  const page = scrapeRequest(url, { ...rest, format });
  return { ...page, ...siteScopeOf(rest), limit, ...(max_depth !== undefined ? { max_depth } : {}) } as CrawlRequest;
}

export function mapRequest(input: MapInput): MapRequest {
  return { url: input.url, limit: input.limit, ...siteScopeOf(input) };
}
