import { apiKeySecurity, EXAMPLE_REQUEST_ID, errorResponses, idempotencyKeyParameter, submitAnswer, jsonRequestBody, jsonResponse, nullableString, pathParameter, schemaRef, type DocSection } from './doc-builders.js';
import type { Schema } from './openapi-types.js';

const requestId: Schema = { type: 'string', description: 'Request id (UUIDv7); lives 24 hours.' };
const scrapedContent: Schema = {
  type: 'object',
  required: ['html', 'text'],
  description: 'Outer HTML of every matched element (joined by newlines) and their text; the whole page without a selector.',
  properties: { html: { type: 'string' }, text: { type: 'string' } },
};
const llmJson: Schema = { type: 'object', description: 'JSON shaped by the prompt.', additionalProperties: true };
const llmInputTruncated: Schema = {
  type: 'boolean',
  const: true,
  description: 'Present (true) only when the page was longer than the model input budget and its content was trimmed before the model saw it (LLM mode).',
};

const schemas: Record<string, Schema> = {
  V1ScrapeRequest: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri' },
      selector: nullableString('CSS selector, or XPath when it starts with "/", "./" or "(" (basic mode). Invalid selectors answer 400.'),
      use_llm: { type: 'boolean', default: false, description: 'false: basic mode (selector); true: LLM mode (prompt).' },
      prompt: { type: 'string', description: 'Extraction instruction (LLM mode).' },
      webhook: nullableString('HTTPS URL receiving the result.', 'uri'),
    },
    additionalProperties: true,
  },
  V1BasicResult: { type: 'object', required: ['request_id', 'scraped_content'], properties: { request_id: requestId, scraped_content: scrapedContent } },
  V1LlmResult: { type: 'object', required: ['request_id', 'llm_json_structure'], properties: { request_id: requestId, llm_json_structure: llmJson, llm_input_truncated: llmInputTruncated } },
  V1Accepted: { type: 'object', required: ['request_id', 'status'], properties: { request_id: requestId, status: { type: 'string', const: 'processing' } } },
  V1Status: {
    type: 'object',
    required: ['request_id', 'status'],
    properties: {
      request_id: requestId,
      status: { type: 'string', enum: ['pending', 'processing', 'completed', 'failed'] },
      scraped_content: scrapedContent,
      llm_json_structure: llmJson,
      llm_input_truncated: llmInputTruncated,
      status_code: { type: 'integer', description: 'HTTP status the failure corresponds to (failed only).' },
      details: { type: 'string', description: 'Why it failed (failed only).' },
    },
  },
  V1Error: {
    type: 'object',
    description: 'Error body of the deprecated scraper: a message and the HTTP status (400, 401, 403 target refused us, 404, 413, 422 LLM failed, 429, 500, 503).',
    required: ['error', 'status_code'],
    properties: {
      error: { type: 'string' },
      status_code: { type: 'integer' },
      request_id: { type: 'string', description: 'When the request was accepted and then failed inside the 20 s window.' },
      details: { type: 'array', items: { type: 'string' }, description: 'A 403 for a key without the scrape scope names it.' },
    },
  },
};

const submitExample = { url: 'https://example.com/pricing', selector: 'table.prices', use_llm: false };

export const v1ScraperDoc: DocSection = {
  schemas,
  paths: {
    '/v1/llm-web-scrapper/': {
      post: {
        operationId: 'submitV1Scrape',
        summary: 'Scrape by selector or prompt (deprecated)',
        description: 'Deprecated beta API. Waits up to 20 s, then answers 202. JavaScript is not run; pages over 5 MB fail. One credit per submit.',
        tags: ['Deprecated v1 scraper'],
        deprecated: true,
        security: apiKeySecurity,
        parameters: [idempotencyKeyParameter],
        requestBody: jsonRequestBody(schemaRef('V1ScrapeRequest'), {
          css: { summary: 'CSS selector', value: submitExample },
          xpath: { summary: 'XPath selector', value: { url: 'https://example.com/pricing', selector: '//table[@class="prices"]//tr', use_llm: false } },
          llm: { summary: 'Language-model extraction', value: { url: 'https://example.com/pricing', use_llm: true, prompt: 'List every plan with its monthly price.' } },
        }),
        responses: {
          '200': submitAnswer(jsonResponse(200, 'Completed within 20 s.', { oneOf: [schemaRef('V1BasicResult'), schemaRef('V1LlmResult')] })),
          '202': submitAnswer(jsonResponse(202, 'Still processing.', schemaRef('V1Accepted'), { request_id: EXAMPLE_REQUEST_ID, status: 'processing' })),
          ...errorResponses('V1Error', {
            400: 'Invalid parameters (URL, selector, missing prompt, no registered LLM key, malformed Idempotency-Key).',
            401: 'Missing or unknown API key.',
            403: 'The key lacks the scrape scope, or the target website refused us.',
            404: 'The target page does not exist.',
            413: 'Body over 100 KB.',
            422: 'Language-model processing failed, or the Idempotency-Key was already used with a different request body.',
            429: 'Rate limit exceeded.',
            500: 'Processing failed.',
            503: 'Storage or queue unreachable.',
          }),
        },
      },
    },
    '/v1/llm-web-scrapper/{request_id}': {
      get: {
        operationId: 'getV1Scrape',
        summary: 'Status of a v1 scrape (deprecated)',
        description: 'At most 3 reads per request id; the 4th answers 429. Ids live 24 hours.',
        tags: ['Deprecated v1 scraper'],
        deprecated: true,
        security: apiKeySecurity,
        parameters: [pathParameter('request_id', 'The id answered by the submit.', EXAMPLE_REQUEST_ID)],
        responses: {
          '200': jsonResponse(200, 'Pending, processing, completed or failed.', schemaRef('V1Status')),
          ...errorResponses('V1Error', {
            401: 'Missing or unknown API key.',
            403: 'The key lacks the scrape scope.',
            404: 'Unknown or expired request id.',
            429: 'More than 3 reads of this id, or rate limit exceeded.',
            503: 'Storage unreachable.',
          }),
        },
      },
    },
  },
};
