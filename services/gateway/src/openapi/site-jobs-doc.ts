import { apiKeySecurity, EXAMPLE_REQUEST_ID, errorResponses, idempotencyKeyParameter, jsonRequestBody, jsonResponse, nullableString, pathParameter, preferSubmitParameter, preferWaitParameter, schemaRef, submitAnswer, type DocSection } from './doc-builders.js';
import type { Parameter, Schema } from './openapi-types.js';

const requestId: Schema = { type: 'string', description: 'Request id (UUIDv7).' };
const unixTime = (description: string): Schema => ({ type: 'integer', description: `${description} (Unix time, seconds).` });
const siteStatus: Schema = { type: 'string', enum: ['processing', 'completed', 'cancelled', 'failed'] };

/** The per-page fields of ScrapeRequest, applied to every page of a crawl or batch. */
const pageOptions: Record<string, Schema> = {
  output_type: { type: 'string', enum: ['plaintext', 'markdown'], default: 'plaintext', description: "markdown adds content.markdown to each page's text." },
  use_llm: { type: 'boolean', default: false, description: 'Run every page through a language model (prompt required; each page spends tokens).' },
  prompt: { type: 'string' },
  llm_key_id: nullableString('Language-model key to use; the most recently added when absent.'),
  schema: { type: 'object', additionalProperties: true, description: 'JSON Schema each page\'s llm_output must follow (LLM mode only).' },
  render_js: { oneOf: [{ type: 'string', enum: ['auto'] }, { type: 'boolean' }], default: 'auto', description: 'As for a scrape, per page.' },
  wait_for: { type: 'integer', minimum: 0, maximum: 30000 },
  wait_for_selector: { type: 'string', minLength: 1, maxLength: 1000 },
  timeout: { type: 'integer', minimum: 1000, maximum: 120000, description: 'Milliseconds one page may take (default 30000).' },
  tags: { type: 'array', items: { type: 'string' }, description: 'Labels echoed in the status answers and webhooks.' },
};

const scopeOptions: Record<string, Schema> = {
  include_paths: { type: 'array', maxItems: 50, items: { type: 'string' }, description: 'Regular expressions (JavaScript syntax) tested on the path of each URL found: only paths matching one are followed. The start URL is always read. A group that repeats a repetition (such as (a+)+) is refused (E009).' },
  exclude_paths: { type: 'array', maxItems: 50, items: { type: 'string' }, description: 'Regular expressions: paths matching one are not followed.' },
  allow_subdomains: { type: 'boolean', default: false, description: 'Follow links to subdomains of the start host (www. and the bare host are always one site).' },
  allow_external: { type: 'boolean', default: false, description: 'Follow links to any host (each with its own robots.txt and politeness).' },
  sitemap: { type: 'string', enum: ['include', 'skip', 'only'], default: 'include', description: "include: the site's sitemaps (robots.txt Sitemap: lines, else /sitemap.xml; index files and gzip followed) add their URLs at depth 0; skip: links only; only: the sitemaps' URLs (and the start URL), no links followed." },
  ignore_query: { type: 'boolean', default: false, description: 'URLs that differ only in their query are one page.' },
};

const counts: Schema = {
  type: 'object',
  required: ['discovered', 'queued', 'processing', 'completed', 'failed', 'skipped', 'skipped_by'],
  properties: {
    discovered: { type: 'integer', minimum: 0, description: 'Distinct URLs found (links, sitemaps, the start URL).' },
    queued: { type: 'integer', minimum: 0, description: 'Waiting to be fetched.' },
    processing: { type: 'integer', minimum: 0, description: 'Being fetched now.' },
    completed: { type: 'integer', minimum: 0 },
    failed: { type: 'integer', minimum: 0 },
    skipped: { type: 'integer', minimum: 0 },
    skipped_by: {
      type: 'object',
      description: 'Skipped URLs by reason: robots, other_host, excluded_path, not_included_path, depth, file, duplicate, not_html, url_cap, redirect_out_of_scope.',
      additionalProperties: { type: 'integer', minimum: 0 },
    },
  },
};

const pageEntry: Schema = {
  oneOf: [
    {
      type: 'object',
      required: ['url', 'status', 'content'],
      properties: {
        url: { type: 'string' },
        status: { type: 'string', const: 'completed' },
        depth: { type: 'integer', minimum: 0, description: 'Crawls: link hops from the start URL (sitemap URLs: 0).' },
        content: schemaRef('ScrapeContent'),
        llm_output: { type: 'object', additionalProperties: true },
        llm_input_truncated: { type: 'boolean', const: true },
      },
    },
    {
      type: 'object',
      required: ['url', 'status', 'error'],
      properties: { url: { type: 'string' }, status: { type: 'string', const: 'failed' }, depth: { type: 'integer', minimum: 0 }, error: { type: 'string', description: '"CODE: message", as a single scrape would fail.' } },
    },
    {
      type: 'object',
      required: ['url', 'status', 'reason'],
      properties: { url: { type: 'string' }, status: { type: 'string', const: 'skipped' }, reason: { type: 'string', description: 'Why it was not read: robots.txt refused it, a duplicate of a page already crawled (redirect, canonical URL), not an HTML page.' } },
    },
  ],
};

const schemas: Record<string, Schema> = {
  CrawlRequest: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'Start URL (http or https, publicly reachable).' },
      limit: { type: 'integer', minimum: 1, maximum: 10000, default: 100, description: 'Pages read (completed or failed) at most; never exceeded. Duplicates and skipped URLs do not count.' },
      max_depth: { type: 'integer', minimum: 0, maximum: 1000, description: 'Link hops from the start URL; sitemap URLs are depth 0. No limit when absent.' },
      max_concurrency: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'Requests to one host at once (also bounded by robots.txt Crawl-delay and the adaptive delay).' },
      webhook: nullableString('HTTPS URL sent crawl.page notices (runs of listed pages) and crawl.completed, crawl.cancelled or crawl.failed, signed like every webhook.', 'uri'),
      ...scopeOptions,
      ...pageOptions,
    },
    additionalProperties: true,
  },
  BatchRequest: {
    type: 'object',
    required: ['urls'],
    properties: {
      urls: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', format: 'uri' }, description: 'Pages to scrape (1 to BATCH_MAX_URLS, 1000 by default); one page given in two spellings is read once. The body may be up to 4 MB.' },
      max_concurrency: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'Requests to one host at once.' },
      webhook: nullableString('HTTPS URL sent batch.page notices and batch.completed, batch.cancelled or batch.failed.', 'uri'),
      ...pageOptions,
    },
    additionalProperties: true,
  },
  MapRequest: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'The site (its start page).' },
      limit: { type: 'integer', minimum: 1, maximum: 30000, default: 5000, description: 'Links answered at most.' },
      ...scopeOptions,
      tags: pageOptions.tags,
    },
    additionalProperties: true,
  },
  CrawlAccepted: {
    type: 'object',
    required: ['request_id', 'status'],
    properties: { request_id: requestId, status: { type: 'string', const: 'processing' }, url: { type: 'string' }, urls: { type: 'integer', description: 'Batches: how many URLs were given.' } },
  },
  CrawlCounts: counts,
  CrawlPage: pageEntry,
  CrawlStatus: {
    type: 'object',
    required: ['request_id', 'status', 'created_at', 'counts', 'pages', 'next'],
    properties: {
      request_id: requestId,
      status: siteStatus,
      url: { type: 'string', description: 'Crawls: the start URL.' },
      created_at: unixTime('When it was accepted'),
      completed_at: unixTime('When it ended'),
      tags: { type: 'array', items: { type: 'string' } },
      reason: { type: 'string', description: 'Once ended (completed or cancelled): why, e.g. "the limit of 100 pages was reached".' },
      error: { type: 'string', description: 'Failed: "CODE: message".' },
      counts: schemaRef('CrawlCounts'),
      pages: { type: 'array', items: schemaRef('CrawlPage'), description: 'Listed results from the cursor on (at most 100, and at most 8 MB of them), in the order they were listed.' },
      next: { type: ['string', 'null'], description: 'The cursor of the next read (?cursor=); null once the crawl has ended and these are its last results.' },
    },
  },
  MapLink: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, title: { type: 'string', description: 'The page title, for pages the map read.' } } },
  MapStatus: {
    type: 'object',
    required: ['request_id', 'status', 'url'],
    properties: {
      request_id: requestId,
      status: siteStatus,
      url: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      links: { type: 'array', items: schemaRef('MapLink'), description: 'Completed: the start URL first, then the URLs in the order found.' },
      error: { type: 'string', description: 'Failed: "CODE: message".' },
    },
  },
};

const idParameter = (what: string): Parameter => pathParameter('request_id', `The id answered by the ${what} submit.`, EXAMPLE_REQUEST_ID);
const resultLimitParameter: Parameter = { name: 'limit', in: 'query', required: false, description: 'Results this answer carries at most (0 to 100, the default; and no more than 8 MB of them): 0 reads the state and counts alone, e.g. to watch progress.', schema: { type: 'integer', minimum: 0, maximum: 100, default: 100 }, example: 0 };
const cursorParameter: Parameter = { name: 'cursor', in: 'query', required: false, description: 'Where to read the results from: the next of a previous answer (0, the default, is the start).', schema: { type: 'string', pattern: '^\\d{1,9}$' }, example: '0' };

const commonErrors = (scope: string) => ({
  401: 'E004: missing or unknown API key.',
  403: `E004: the key lacks the ${scope} scope.`,
  429: 'E429: rate limit exceeded.',
  503: 'E006: storage or queue unreachable.',
});

function statusOperations(family: 'crawl' | 'batch', title: string): DocSection['paths'][string] {
  const notFound = { 404: `E002: unknown id, another account's, or older than 24 hours after the ${family} ended.` };
  return {
    get: {
      operationId: `get${title}`,
      summary: `${title} status and results`,
      description: `The ${family}'s state, counts and its listed results from the cursor on; read on with next until it is null. Kept 24 hours after the ${family} ends.`,
      tags: ['Web scraper'],
      security: apiKeySecurity,
      parameters: [idParameter(family), cursorParameter, resultLimitParameter],
      responses: {
        '200': jsonResponse(200, 'Its state and a page of results.', schemaRef('CrawlStatus')),
        ...errorResponses('ScraperError', { 400: 'E009: a cursor no answer gave, or a limit out of range.', ...notFound, ...commonErrors('scrape') }),
      },
    },
    delete: {
      operationId: `cancel${title}`,
      summary: `Cancel a ${family}`,
      description: `Stops the ${family} promptly (its pages being fetched are abandoned, what it listed is kept) and answers its state without results (read them with GET). A ${family} that already ended is left as it was.`,
      tags: ['Web scraper'],
      security: apiKeySecurity,
      parameters: [idParameter(family)],
      responses: {
        '200': jsonResponse(200, 'Its state (cancelled, or how it had already ended).', schemaRef('CrawlStatus')),
        ...errorResponses('ScraperError', { ...notFound, ...commonErrors('scrape') }),
      },
    },
  };
}

/**
 * A crawl or batch retried with its Idempotency-Key answers the one it started: 202 while it runs,
 * its state once ended; never refused for the account's cap of running crawls.
 */
const siteJobIdempotencyKey: Parameter = {
  ...idempotencyKeyParameter,
  description:
    "Makes the submit safe to retry. A submit whose key (per account and family) already started a crawl (or batch) answers for it instead of starting another: the same request id, 202 as its submit answered while it runs (even when the account already runs its cap of crawls), 200 with its state (without results: read them with GET) once it has ended. The key is kept as long as the crawl's record (24 hours after its end). The same key with a different body answers 422. 1 to 255 printable ASCII characters; anything else answers 400.",
};

/** A retried crawl or batch that has ended: its state, as its DELETE answers. */
const replayedEnded = submitAnswer(jsonResponse(200, 'A retry with an Idempotency-Key whose crawl has ended: its state without results (Idempotent-Replayed: true).', schemaRef('CrawlStatus')));

const submitErrors = {
  400: 'E001 malformed body or Idempotency-Key, E003 bad or non-public URL, E009 rule violation.',
  422: 'E009: the Idempotency-Key was already used with a different request body.',
  401: 'E004: missing or unknown API key.',
  403: 'E004: the key lacks the scrape scope.',
  413: 'E001: body too large.',
  429: 'E429: rate limit exceeded, or E010: the account already runs CRAWL_ACCOUNT_MAX_RUNNING crawls and batches.',
  503: 'E006: storage or queue unreachable.',
};

export const siteJobsDoc: DocSection = {
  schemas,
  paths: {
    '/web-scrapper/crawl': {
      post: {
        operationId: 'startCrawl',
        summary: 'Crawl a site',
        description:
          'Reads the pages of a site from a start URL, following its links (and sitemaps) within the filters, each page as a single scrape with these options, politely: robots.txt obeyed (User-agent GleanerBot), its Crawl-delay kept, at most max_concurrency requests to a host, an adaptive delay. Answers 202 at once; read the state and results on GET /web-scrapper/crawl/{request_id}, or receive them by webhook.',
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [siteJobIdempotencyKey],
        requestBody: jsonRequestBody(schemaRef('CrawlRequest'), {
          docs: { summary: 'A documentation site as markdown', value: { url: 'https://docs.example.com/', limit: 500, output_type: 'markdown', include_paths: ['^/guide/'] } },
          shallow: { summary: 'Two hops, no sitemaps', value: { url: 'https://example.com/', max_depth: 2, sitemap: 'skip', webhook: 'https://hooks.example.net/gleaner' } },
        }),
        responses: {
          '200': replayedEnded,
          '202': submitAnswer(jsonResponse(202, 'Accepted: it runs in the background.', schemaRef('CrawlAccepted'), { request_id: EXAMPLE_REQUEST_ID, status: 'processing', url: 'https://docs.example.com/' })),
          ...errorResponses('ScraperError', submitErrors),
        },
      },
    },
    '/web-scrapper/crawl/{request_id}': statusOperations('crawl', 'Crawl'),
    '/web-scrapper/batch': {
      post: {
        operationId: 'startBatch',
        summary: 'Scrape a batch of URLs',
        description: 'Scrapes each URL with the same options (robots.txt is not consulted: the caller named the pages; per-host politeness still applies). A URL that fails is listed as failed; the batch goes on. Answers 202 at once; read it on GET /web-scrapper/batch/{request_id}.',
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [siteJobIdempotencyKey],
        requestBody: jsonRequestBody(schemaRef('BatchRequest'), {
          pages: { summary: 'Three pages as markdown', value: { urls: ['https://example.com/a', 'https://example.com/b', 'https://example.org/c'], output_type: 'markdown' } },
        }),
        responses: {
          '200': replayedEnded,
          '202': submitAnswer(jsonResponse(202, 'Accepted: it runs in the background.', schemaRef('CrawlAccepted'), { request_id: EXAMPLE_REQUEST_ID, status: 'processing', urls: 3 })),
          ...errorResponses('ScraperError', submitErrors),
        },
      },
    },
    '/web-scrapper/batch/{request_id}': statusOperations('batch', 'Batch'),
    '/web-scrapper/map': {
      post: {
        operationId: 'mapSite',
        summary: "List a site's URLs",
        description: "The site's URLs without scraping them: its sitemaps (bounded), the links of its start page and of up to 25 link pages (robots.txt obeyed), with titles where a page was read; filtered as a crawl. 200 with the links when done within 20 s, else 202 and GET /web-scrapper/map/{request_id}.",
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [idempotencyKeyParameter, preferSubmitParameter],
        requestBody: jsonRequestBody(schemaRef('MapRequest'), { site: { summary: 'A site, blog posts only', value: { url: 'https://example.com/', include_paths: ['^/blog/'] } } }),
        responses: {
          '200': submitAnswer(jsonResponse(200, 'Mapped within the window.', schemaRef('MapStatus'))),
          '202': submitAnswer(jsonResponse(202, 'Still mapping after 20 s (at once with Prefer: respond-async).', schemaRef('MapStatus'), { request_id: EXAMPLE_REQUEST_ID, status: 'processing', url: 'https://example.com/' })),
          ...errorResponses('ScraperError', submitErrors),
          '400': jsonResponse(400, 'E001 malformed body, E003 bad or non-public URL (also a map whose start page failed with E003 inside the window), E009 rule violation.', { oneOf: [schemaRef('ScraperError'), schemaRef('MapStatus')] }),
          '500': jsonResponse(500, 'E008: the start page could not be read and nothing else was found.', { oneOf: [schemaRef('ScraperError'), schemaRef('MapStatus')] }),
        },
      },
    },
    '/web-scrapper/map/{request_id}': {
      get: {
        operationId: 'getMap',
        summary: 'Map status and links',
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [idParameter('map'), preferWaitParameter],
        responses: {
          '200': jsonResponse(200, 'Processing, completed (with links) or failed.', schemaRef('MapStatus')),
          ...errorResponses('ScraperError', { 404: "E002: unknown id, another account's, or expired.", ...commonErrors('scrape') }),
        },
      },
    },
  },
};
