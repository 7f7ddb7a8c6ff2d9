import { apiKeySecurity, EXAMPLE_REQUEST_ID, errorResponses, idempotencyKeyParameter, preferSubmitParameter, preferWaitParameter, submitAnswer, jsonRequestBody, jsonResponse, nullableString, pathParameter, schemaRef, type DocSection } from './doc-builders.js';
import type { Schema } from './openapi-types.js';

const requestId: Schema = { type: 'string', description: 'Request id (UUIDv7).' };
const timestamp: Schema = { type: 'integer', description: 'Unix time (seconds) the request was processed.' };

const pageMeta: Schema = {
  type: 'object',
  description: 'Page metadata: always title and description; the other fields when the page has them.',
  required: ['title', 'description'],
  properties: {
    title: { type: 'string' },
    description: { type: 'string' },
    language: { type: 'string' },
    canonical_url: { type: 'string' },
    site_name: { type: 'string' },
    author: { type: 'string' },
    published_time: { type: 'string' },
    modified_time: { type: 'string' },
    keywords: { type: 'array', items: { type: 'string' } },
    favicon: { type: 'string' },
    og_image: { type: 'string' },
    og: { type: 'object', description: 'Every og:* property.', additionalProperties: { type: 'string' } },
    twitter: { type: 'object', description: 'Every twitter:* property.', additionalProperties: { type: 'string' } },
    json_ld: { type: 'array', description: 'JSON-LD blocks of the page.', items: {} },
    status_code: { type: 'integer', description: 'HTTP status of the final response.' },
    content_type: { type: 'string' },
    final_url: { type: 'string', description: 'URL after redirects (and, when rendered, after client-side navigation).' },
    rendered: { type: 'boolean', description: 'True when the text was read from the page as rendered in Chromium (render_js), false when from its static HTML.' },
    render_error: { type: 'string', description: 'render_js auto only: why rendering failed and the static page was kept, "E008: …".' },
  },
  additionalProperties: true,
};

const pageLink: Schema = {
  type: 'object',
  required: ['text', 'url', 'type'],
  properties: {
    text: { type: 'string' },
    url: { type: 'string', description: 'Absolute URL (or the mailto:/tel: address).' },
    type: { type: 'string', enum: ['internal', 'external', 'mailto', 'tel'], description: 'internal: same registrable host as the final URL.' },
  },
};

const pageImage: Schema = {
  type: 'object',
  required: ['url', 'alt'],
  properties: { url: { type: 'string', description: 'Absolute URL (srcset and lazy data-src resolved).' }, alt: { type: 'string' } },
};

const pageParts: Record<string, Schema> = {
  meta: schemaRef('PageMeta'),
  links: { type: 'array', items: schemaRef('PageLink') },
  images: { type: 'array', items: schemaRef('PageImage') },
};

const llmOutput: Schema = { type: 'object', description: 'JSON produced by the language model; its structure follows the prompt (and `schema` when given).', additionalProperties: true };
const llmInputTruncated: Schema = {
  type: 'boolean',
  const: true,
  description: 'Present (true) only when the page was longer than the model input budget and its content was trimmed before the model saw it. Also in the completion webhook.',
};
const cached: Schema = { type: 'boolean', const: true, description: 'Present on answers served from the cache (use_cache).' };

const schemas: Record<string, Schema> = {
  ScrapeRequest: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'Page to scrape (http or https, publicly reachable).' },
      output_type: { type: 'string', enum: ['plaintext', 'markdown'], default: 'plaintext', description: 'markdown adds markdown_content (content.markdown) to the text.' },
      use_cache: { type: 'boolean', default: false, description: 'Return the most recent cached result for this URL (15 days); every other field is then ignored. 404 E002 when nothing is cached.' },
      webhook: nullableString('HTTPS URL notified when the request ends (completed or failed), signed with the account webhook secret.', 'uri'),
      use_llm: { type: 'boolean', default: false, description: 'Run the page through a language model; requires prompt and a registered LLM key.' },
      prompt: { type: 'string', description: 'What to extract (LLM mode).' },
      llm_key_id: nullableString('Id of a language-model key registered with POST /account/llm-keys; the most recently added key when absent.'),
      schema: { type: 'object', additionalProperties: true, description: 'Optional JSON Schema that llm_output must follow (LLM mode only).' },
      render_js: {
        oneOf: [{ type: 'string', enum: ['auto'] }, { type: 'boolean' }],
        default: 'auto',
        description:
          'Run the page in headless Chromium before extracting it. auto: fetch it statically and render it only when it looks client-rendered (little text beside a mount node, a noscript "enable JavaScript" notice, a large inline state blob, a hash route), or when wait_for or wait_for_selector is given; a rendering that fails then keeps the static page (meta.render_error says why). true: always render. false: never. meta.rendered says which happened.',
      },
      wait_for: { type: 'integer', minimum: 0, maximum: 30000, description: 'Rendering: milliseconds to wait once the page has loaded and settled, before it is read. Shorter than timeout; not with render_js false.' },
      wait_for_selector: { type: 'string', minLength: 1, maxLength: 1000, description: 'Rendering: a CSS selector the page must contain before it is read (it is waited for within timeout; E008 when it never appears, E009 when it is not valid CSS). Not with render_js false.' },
      timeout: { type: 'integer', minimum: 1000, maximum: 120000, description: 'Milliseconds the page may take, static or rendered: one deadline for the whole fetch (connect, redirects, body), and for a rendering its loading, waits and scrolling. Default 30000 (SCRAPER_FETCH_TIMEOUT_MS). A page slower than the 20 s window answers 202 and completes on the status endpoint and webhook.' },
    },
    additionalProperties: true,
  },
  PageMeta: pageMeta,
  PageLink: pageLink,
  PageImage: pageImage,
  ScrapeContent: {
    type: 'object',
    required: ['text', 'meta', 'links', 'images'],
    properties: { text: { type: 'string' }, markdown: { type: 'string', description: 'When output_type was markdown.' }, ...pageParts },
  },
  ScrapeBasicResult: {
    type: 'object',
    description: 'Immediate result in basic mode.',
    required: ['request_id', 'url', 'status', 'timestamp', 'text_content', 'meta', 'links', 'images'],
    properties: {
      request_id: requestId,
      url: { type: 'string' },
      status: { type: 'string', const: 'completed' },
      timestamp,
      text_content: { type: 'string' },
      markdown_content: { type: 'string', description: 'When output_type was markdown.' },
      ...pageParts,
      cached,
    },
  },
  ScrapeLlmResult: {
    type: 'object',
    description: 'Immediate result in LLM mode.',
    required: ['request_id', 'url', 'status', 'timestamp', 'content', 'llm_output'],
    properties: { request_id: requestId, url: { type: 'string' }, status: { type: 'string', const: 'completed' }, timestamp, content: schemaRef('ScrapeContent'), llm_output: llmOutput, llm_input_truncated: llmInputTruncated, cached },
  },
  ScrapeAccepted: {
    type: 'object',
    description: 'The work outlasted the 20 s window: poll the status endpoint or wait for the webhook.',
    required: ['request_id', 'url', 'status', 'message'],
    properties: { request_id: requestId, url: { type: 'string' }, status: { type: 'string', const: 'processing' }, message: { type: 'string' } },
  },
  ScrapeProcessingStatus: {
    type: 'object',
    required: ['request_id', 'url', 'status', 'timestamp'],
    properties: { request_id: requestId, url: { type: 'string' }, status: { type: 'string', enum: ['received', 'processing'] }, timestamp },
  },
  WebhookDelivery: {
    type: 'object',
    description: "Delivery of the request's own webhook; present only when the request gave one.",
    required: ['status', 'attempts'],
    properties: {
      status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
      attempts: { type: 'integer', minimum: 0 },
      error: { type: 'string', description: 'Why delivery failed for good, e.g. "receiver answered HTTP 410".' },
    },
  },
  ScrapeCompletedStatus: {
    type: 'object',
    required: ['request_id', 'url', 'status', 'timestamp', 'content'],
    properties: { request_id: requestId, url: { type: 'string' }, status: { type: 'string', const: 'completed' }, timestamp, content: schemaRef('ScrapeContent'), llm_output: llmOutput, llm_input_truncated: llmInputTruncated, webhook_delivery: schemaRef('WebhookDelivery') },
  },
  ScrapeFailedStatus: {
    type: 'object',
    required: ['request_id', 'url', 'status', 'timestamp', 'error'],
    properties: {
      request_id: requestId,
      url: { type: 'string' },
      status: { type: 'string', const: 'failed' },
      timestamp,
      error: { type: 'string', description: '"CODE: message", e.g. "E008: target answered HTTP 404".' },
      error_trace: { type: 'string', description: 'Only when the service runs in development mode.' },
      webhook_delivery: schemaRef('WebhookDelivery'),
    },
  },
  ScraperError: {
    type: 'object',
    description: 'Error body of the current scraper and of /account: "CODE: message" (E001 400, E002 404, E003 400, E004 401/403, E006 503, E008 500, E009 400, E010 429, E429 429).',
    required: ['error'],
    properties: {
      error: { type: 'string', pattern: '^E\\d{3}: ', examples: ['E003: url must be an absolute http or https URL'] },
      details: { type: 'array', items: { type: 'string' }, description: "Only when there is more to say: a 403 names the scope the key lacks (\"this API needs a key with the 'parse' scope; this key has 'scrape'\")." },
    },
  },
};

const submitExample = { url: 'https://example.com/articles/gleaning', output_type: 'markdown' };

/** A request that fails inside the window answers with its failed result, in the 4xx/5xx status of its code. */
const failedOrError: Schema = { oneOf: [schemaRef('ScraperError'), schemaRef('ScrapeFailedStatus')] };

export const webScraperDoc: DocSection = {
  schemas,
  paths: {
    '/web-scrapper/': {
      post: {
        operationId: 'submitScrape',
        summary: 'Scrape a page',
        description: 'Answers 200 with the result when the work completes within 20 s, else 202; the status endpoint and the webhook deliver the rest. Basic mode answers flat fields, LLM mode a content object plus llm_output.',
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [idempotencyKeyParameter, preferSubmitParameter],
        requestBody: jsonRequestBody(schemaRef('ScrapeRequest'), {
          markdown: { summary: 'Text and markdown', value: submitExample },
          llm: { summary: 'Language-model extraction', value: { url: 'https://example.com/products/42', use_llm: true, prompt: 'Return the product name and price as {name, price}.', llm_key_id: '01920c4e-0000-7000-8000-00000000a11e' } },
          cache: { summary: 'Cached result only', value: { url: 'https://example.com/articles/gleaning', use_cache: true } },
          webhook: { summary: 'With a completion webhook', value: { url: 'https://example.com/', webhook: 'https://hooks.example.net/gleaner' } },
          rendered: { summary: 'Rendered in a browser', value: { url: 'https://app.example.com/#/reports/7', render_js: true, wait_for_selector: '#report table', timeout: 45000 } },
        }),
        responses: {
          '200': submitAnswer(jsonResponse(200, 'Completed within the window (or served from the cache).', { oneOf: [schemaRef('ScrapeBasicResult'), schemaRef('ScrapeLlmResult')] })),
          '202': submitAnswer(jsonResponse(202, 'Still processing after 20 s.', schemaRef('ScrapeAccepted'), { request_id: EXAMPLE_REQUEST_ID, url: submitExample.url, status: 'processing', message: 'Request is still processing. Check the status endpoint later (poll at most every 5 minutes) or wait for the webhook.' })),
          '400': jsonResponse(400, 'E001 malformed body or Idempotency-Key, E003 bad or non-public URL, E009 rule violation (also a request that failed with E003/E009 inside the window).', failedOrError),
          ...errorResponses('ScraperError', {
            401: 'E004: missing or unknown API key.',
            403: "E004: the key lacks the scrape scope (details name it).",
            404: 'E002: use_cache and nothing is cached for this URL.',
            413: 'E001: body over 100 KB.',
            422: 'E009: the Idempotency-Key was already used with a different request body.',
            429: 'E429: rate limit exceeded.',
          }),
          '500': jsonResponse(500, 'E008: processing failed inside the window (failed result), or an internal error.', failedOrError),
          ...errorResponses('ScraperError', { 503: 'E006: storage or queue unreachable.' }),
        },
      },
    },
    '/web-scrapper/{request_id}': {
      get: {
        operationId: 'getScrape',
        summary: 'Scrape status and result',
        description: 'Results are kept 15 hours after completion. Poll at most every 5 minutes, or use a webhook.',
        tags: ['Web scraper'],
        security: apiKeySecurity,
        parameters: [pathParameter('request_id', 'The id answered by the submit.', EXAMPLE_REQUEST_ID), preferWaitParameter],
        responses: {
          '200': jsonResponse(200, 'Processing, completed or failed.', { oneOf: [schemaRef('ScrapeProcessingStatus'), schemaRef('ScrapeCompletedStatus'), schemaRef('ScrapeFailedStatus')] }),
          ...errorResponses('ScraperError', {
            401: 'E004: missing or unknown API key.',
            403: "E004: the key lacks the scrape scope (details name it).",
            404: "E002: unknown id, another account's id, or older than 15 hours after completion.",
            429: 'E429: rate limit exceeded.',
            503: 'E006: storage unreachable.',
          }),
        },
      },
    },
  },
};
