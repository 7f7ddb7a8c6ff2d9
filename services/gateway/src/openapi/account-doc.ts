import { DEFAULT_SUBSCRIPTION_FAMILIES, LABEL_MAX_CHARS, LLM_PROVIDERS, LLM_SECRET_MAX_CHARS, REQUEST_FAMILIES, SCOPES, SUBSCRIPTION_FAMILIES, USAGE_DAYS_KEPT } from '@gleaner/store';
import { apiKeySecurity, emptyResponse, errorResponses, EXAMPLE_REQUEST_ID, jsonRequestBody, jsonResponse, pathParameter, schemaRef, type DocSection } from './doc-builders.js';
import type { Operation, Parameter, Response, Schema } from './openapi-types.js';

const families: Schema = {
  type: 'array',
  minItems: 1,
  items: { type: 'string', enum: [...SUBSCRIPTION_FAMILIES] },
  description:
    "Which requests are delivered when they end. crawl and batch: the end notice only ({type: 'crawl.completed' | 'crawl.cancelled' | 'crawl.failed', request_id, status, reason?, error?, counts}, batch.… for batches), not the page runs a crawl's own webhook gets: read the pages by cursor. map: its status body with the links.",
};
const scopes: Schema = { type: 'array', minItems: 1, items: { type: 'string', enum: [...SCOPES] } };
const unixTime = (description: string): Schema => ({ type: 'integer', description: `${description} (Unix time, seconds).` });
const familyName: Schema = { type: 'string', enum: [...REQUEST_FAMILIES] };
const usageCounts = {
  credits_used: { type: 'integer', minimum: 0, description: 'Credits spent (the v1 scraper charges one per submit).' },
  requests: {
    type: 'object',
    required: [...REQUEST_FAMILIES],
    properties: Object.fromEntries(REQUEST_FAMILIES.map((f) => [f, { type: 'integer', minimum: 0 } satisfies Schema])),
  },
  llm_tokens: { type: 'object', required: ['input', 'output'], properties: { input: { type: 'integer', minimum: 0 }, output: { type: 'integer', minimum: 0 } } },
} satisfies Record<string, Schema>;
const deliveryProperties = {
  url: { type: 'string', description: 'The endpoint delivered to.' },
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  attempts: { type: 'integer', minimum: 0 },
  last_error: { type: 'string', description: 'Why the last attempt failed.' },
  delivered_at: unixTime('When it was accepted'),
} satisfies Record<string, Schema>;
const apiKeyRequired = ['key_id', 'scopes', 'preview', 'created_at'];
const apiKeyProperties = {
  key_id: { type: 'string' },
  label: { type: 'string' },
  scopes,
  preview: { type: 'string', description: 'The first 12 characters of the key.' },
  created_at: unixTime('Creation'),
  last_used_at: unixTime('Last admitted request, to the minute'),
  revoked_at: unixTime('Revocation'),
} satisfies Record<string, Schema>;
const summaryRequired = ['request_id', 'family', 'status', 'url', 'created_at', 'subscription_deliveries'];
const summaryProperties = {
  request_id: { type: 'string' },
  family: familyName,
  status: { type: 'string', enum: ['received', 'processing', 'completed', 'failed', 'cancelled'] },
  url: { type: 'string', description: 'The page or document.' },
  created_at: unixTime('Acceptance'),
  completed_at: unixTime('Outcome recorded'),
  duration_ms: { type: 'integer', minimum: 0, description: 'From acceptance to the recorded outcome.' },
  error: { type: 'string', description: '"CODE: message" of a failed request.' },
  webhook: schemaRef('WebhookDelivery'),
  subscription_deliveries: { type: 'integer', minimum: 0, description: "Deliveries to the account's webhook subscriptions." },
  counts: { type: 'object', description: "Crawls and batches: what they have done, as their status endpoint's counts." },
  urls: { type: 'integer', minimum: 1, description: 'Batches: how many URLs were given.' },
  links: { type: 'integer', minimum: 0, description: 'Completed maps: how many URLs were found.' },
} satisfies Record<string, Schema>;

const schemas: Record<string, Schema> = {
  AccountInfo: {
    type: 'object',
    required: ['account_id', 'name', 'key_id', 'scopes'],
    properties: {
      account_id: { type: 'string' },
      name: { type: 'string' },
      key_id: { type: 'string', description: 'Id of the API key that made this request.' },
      scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
    },
  },
  AccountUsage: {
    type: 'object',
    required: ['credits_used', 'requests', 'llm_tokens', 'rate_limit_per_minute'],
    properties: { ...usageCounts, rate_limit_per_minute: { type: 'integer', minimum: 1 } },
  },
  DailyUsage: {
    type: 'object',
    required: ['days'],
    properties: {
      days: {
        type: 'array',
        description: 'Oldest first, today (UTC) last; days without use are zeros.',
        items: { type: 'object', required: ['date', 'credits_used', 'requests', 'llm_tokens'], properties: { date: { type: 'string', format: 'date', description: 'UTC day.' }, ...usageCounts } },
      },
    },
  },
  ApiKeyRequest: {
    type: 'object',
    required: ['scopes'],
    properties: { scopes, label: { type: 'string', maxLength: LABEL_MAX_CHARS, description: 'What you call the key ("production", "n8n"); no control characters.' } },
  },
  ApiKey: { type: 'object', required: apiKeyRequired, properties: apiKeyProperties },
  CreatedApiKey: {
    type: 'object',
    required: ['key', ...apiKeyRequired],
    properties: { key: { type: 'string', description: 'The key itself: shown this once, stored only as a hash.' }, ...apiKeyProperties },
  },
  ApiKeyList: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', description: 'Oldest first, revoked ones included.', items: schemaRef('ApiKey') } } },
  WebhookDelivery: { type: 'object', required: ['url', 'status', 'attempts'], properties: deliveryProperties },
  AccountRequestSummary: { type: 'object', required: summaryRequired, properties: summaryProperties },
  AccountRequestList: {
    type: 'object',
    required: ['requests'],
    properties: {
      requests: { type: 'array', description: 'Newest first.', items: schemaRef('AccountRequestSummary') },
      cursor: { type: 'string', description: 'Pass as cursor for the next, older page; absent on the last.' },
    },
  },
  AccountRequestDetail: {
    type: 'object',
    required: [...summaryRequired, 'input', 'response', 'subscription_delivery_list'],
    properties: {
      ...summaryProperties,
      input: { type: 'object', description: 'What was asked, as recorded.' },
      text: { type: 'string', description: 'Extracted text (page, document in plain output, v1 selection).' },
      markdown: { type: 'string', description: 'Markdown, when it was asked for.' },
      response: { type: 'object', description: "What the family's status endpoint answers for this request (a crawl or batch: with its results from cursor, at most limit)." },
      error_details: { type: 'array', items: { type: 'string' } },
      subscription_delivery_list: {
        type: 'array',
        items: { type: 'object', required: ['subscription_id', 'url', 'status', 'attempts'], properties: { subscription_id: { type: 'string' }, ...deliveryProperties } },
      },
    },
  },
  WebhookDeliveryList: {
    type: 'object',
    required: ['deliveries'],
    properties: {
      deliveries: {
        type: 'array',
        description: 'Of the most recent requests, newest first: each request\'s own webhook, then its subscriptions.',
        items: {
          type: 'object',
          required: ['request_id', 'family', 'created_at', 'url', 'status', 'attempts'],
          properties: { request_id: { type: 'string' }, family: familyName, created_at: unixTime('Request accepted'), subscription_id: { type: 'string', description: 'Absent for the request\'s own webhook.' }, ...deliveryProperties },
        },
      },
    },
  },
  LlmKeyRequest: {
    type: 'object',
    required: ['key'],
    properties: {
      provider: { type: 'string', enum: [...LLM_PROVIDERS], default: 'anthropic' },
      key: { type: 'string', maxLength: LLM_SECRET_MAX_CHARS, description: 'The provider secret; stored encrypted and never returned.' },
      model: { type: 'string', maxLength: LABEL_MAX_CHARS, description: 'Default model for this key (no control characters).' },
      base_url: { type: 'string', format: 'uri', description: 'Provider base URL (openai-compatible servers, proxies).' },
      label: { type: 'string', maxLength: LABEL_MAX_CHARS, description: 'What you call the key (no control characters).' },
    },
  },
  LlmKey: {
    type: 'object',
    required: ['id', 'provider', 'createdAt', 'masked'],
    properties: {
      id: { type: 'string', description: 'Use as llm_key_id.' },
      provider: { type: 'string', enum: [...LLM_PROVIDERS] },
      model: { type: 'string' },
      baseUrl: { type: 'string' },
      label: { type: 'string' },
      createdAt: { type: 'integer', description: 'Unix time (seconds).' },
      masked: { type: 'string', description: 'The last four characters of the secret.' },
    },
  },
  LlmKeyList: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: schemaRef('LlmKey') } } },
  WebhookSecret: { type: 'object', required: ['secret'], properties: { secret: { type: 'string', description: 'Key of the X-Webhook-Signature HMAC (t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">).' } } },
  WebhookSubscriptionRequest: {
    type: 'object',
    required: ['url'],
    properties: { url: { type: 'string', format: 'uri', description: 'Public HTTPS endpoint.' }, families: { ...families, default: [...DEFAULT_SUBSCRIPTION_FAMILIES] } },
  },
  WebhookSubscription: {
    type: 'object',
    required: ['id', 'url', 'families', 'created_at'],
    properties: { id: { type: 'string' }, url: { type: 'string' }, families, created_at: { type: 'integer', description: 'Unix time (seconds).' } },
  },
  WebhookSubscriptionList: { type: 'object', required: ['webhooks'], properties: { webhooks: { type: 'array', items: schemaRef('WebhookSubscription') } } },
};

/** Every /account answer may fail the same ways (scraper error format). */
const authErrors = errorResponses('ScraperError', {
  401: 'E004: missing or unknown API key.',
  403: 'E004: the key lacks the account scope (details name it).',
  429: 'E429: rate limit exceeded.',
  503: 'E006: storage unreachable.',
});
const bodyErrors = errorResponses('ScraperError', { 400: 'E001 malformed body (also an empty body: send {}), E009 invalid value.', 413: 'E001: body over 100 KB.' });
const notFound = (what: string) => errorResponses('ScraperError', { 404: `E002: no such ${what} on this account.` });

function accountOperation(operationId: string, summary: string, responses: Record<string, Response>, extra: Partial<Operation> = {}): Operation {
  return { operationId, summary, tags: ['Account'], security: apiKeySecurity, ...extra, responses: { ...responses, ...authErrors } };
}

const idParameter = (what: string, example: string) => [pathParameter('id', `Id of the ${what}.`, example)];
const queryParameter = (name: string, description: string, schema: Schema): Parameter => ({ name, in: 'query', description, required: false, schema });
const badQuery = errorResponses('ScraperError', { 400: 'E009: a query parameter out of range.' });

export const accountDoc: DocSection = {
  schemas,
  paths: {
    '/account': {
      get: accountOperation('getAccount', 'Who am I: account and key', { '200': jsonResponse(200, 'The account and this key.', schemaRef('AccountInfo')) }),
    },
    '/account/usage': {
      get: accountOperation('getUsage', 'Usage and rate limit', { '200': jsonResponse(200, 'Credits, requests by family, LLM tokens, current rate limit.', schemaRef('AccountUsage')) }),
    },
    '/account/usage/daily': {
      get: accountOperation(
        'getDailyUsage',
        'Usage per UTC day',
        { '200': jsonResponse(200, 'Requests by family, credits and LLM tokens of each day.', schemaRef('DailyUsage')), ...badQuery },
        { parameters: [queryParameter('days', `Days to return, today included (kept ${USAGE_DAYS_KEPT}).`, { type: 'integer', minimum: 1, maximum: USAGE_DAYS_KEPT, default: 30 })] },
      ),
    },
    '/account/keys': {
      get: accountOperation('listApiKeys', 'List API keys', { '200': jsonResponse(200, 'Keys of this account (never the keys themselves).', schemaRef('ApiKeyList')) }),
      post: accountOperation(
        'createApiKey',
        'Create an API key',
        { '201': jsonResponse(201, 'The key, shown this once.', schemaRef('CreatedApiKey')), ...bodyErrors },
        {
          description:
            'The SPEC\'s "API Keys section": a key with the chosen scopes. Only its hash is stored. An account holds at most ACCOUNT_MAX_API_KEYS (100) live keys: one more answers 400 E009.',
          requestBody: jsonRequestBody(schemaRef('ApiKeyRequest'), {
            scrape: { summary: 'A scraping key', value: { scopes: ['scrape'], label: 'crawler' } },
            all: { summary: 'Every scope', value: { scopes: ['scrape', 'parse', 'account'] } },
          }),
        },
      ),
    },
    '/account/keys/{id}': {
      delete: accountOperation(
        'revokeApiKey',
        'Revoke an API key',
        { '204': emptyResponse(204, 'Revoked: its next request answers 401. It stays listed as revoked for REVOKED_API_KEY_RETENTION_SECONDS (7 days).'), ...notFound('API key') },
        { parameters: idParameter('API key', '0123456789abcdef') },
      ),
    },
    '/account/requests': {
      get: accountOperation(
        'listAccountRequests',
        'Recent requests, every family',
        { '200': jsonResponse(200, 'Newest first, as long as each request\'s record lives (scrapes 15 h after completion, v1 24 h, parse jobs 7 days).', schemaRef('AccountRequestList')), ...badQuery },
        {
          parameters: [
            queryParameter('limit', 'Requests per page.', { type: 'integer', minimum: 1, maximum: 100, default: 25 }),
            queryParameter('cursor', 'The cursor of the previous page.', { type: 'string' }),
          ],
        },
      ),
    },
    '/account/requests/{id}': {
      get: accountOperation(
        'getAccountRequest',
        'One request with its result',
        { '200': jsonResponse(200, 'Summary, input, text and markdown, the status body, deliveries.', schemaRef('AccountRequestDetail')), ...notFound('request'), ...badQuery },
        {
          parameters: [
            ...idParameter('request', EXAMPLE_REQUEST_ID),
            queryParameter('cursor', "Crawls and batches: the first result to answer (the response's next).", { type: 'integer', minimum: 0, default: 0 }),
            queryParameter('limit', 'Crawls and batches: results to answer at most (0: the counts alone).', { type: 'integer', minimum: 0, maximum: 100, default: 25 }),
          ],
        },
      ),
    },
    '/account/webhook-deliveries': {
      get: accountOperation(
        'listWebhookDeliveries',
        'Webhook deliveries of recent requests',
        { '200': jsonResponse(200, 'Status, attempts and last error of each delivery.', schemaRef('WebhookDeliveryList')), ...badQuery },
        { parameters: [queryParameter('limit', 'How many recent requests to look at.', { type: 'integer', minimum: 1, maximum: 100, default: 50 })] },
      ),
    },
    '/account/llm-keys': {
      get: accountOperation('listLlmKeys', 'List language-model keys (masked)', { '200': jsonResponse(200, 'Keys, newest last; secrets masked.', schemaRef('LlmKeyList')) }),
      post: accountOperation(
        'addLlmKey',
        'Register a language-model key',
        { '201': jsonResponse(201, 'Registered; the secret is never returned.', schemaRef('LlmKey')), ...bodyErrors },
        {
          description: 'The most recently added key is used when a scrape names no llm_key_id. An account holds at most ACCOUNT_MAX_LLM_KEYS (20): one more answers 400 E009.',
          requestBody: jsonRequestBody(schemaRef('LlmKeyRequest'), {
            anthropic: { summary: 'Anthropic key', value: { provider: 'anthropic', key: 'sk-ant-example-0000', model: 'claude-sonnet-4-5', label: 'production' } },
            compatible: { summary: 'OpenAI-compatible server', value: { provider: 'openai-compatible', key: 'sk-example-0000', model: 'llama-3.1-8b', base_url: 'https://llm.example.net/v1' } },
          }),
        },
      ),
    },
    '/account/llm-keys/{id}': {
      delete: accountOperation('deleteLlmKey', 'Remove a language-model key', { '204': emptyResponse(204, 'Removed.'), ...notFound('language-model key') }, { parameters: idParameter('language-model key', '01920c4e-0000-7000-8000-00000000a11e') }),
    },
    '/account/webhook-secret': {
      get: accountOperation('getWebhookSecret', 'Webhook signing secret', { '200': jsonResponse(200, 'The current secret.', schemaRef('WebhookSecret')) }),
    },
    '/account/webhook-secret/rotate': {
      post: accountOperation(
        'rotateWebhookSecret',
        'Rotate the webhook signing secret',
        { '200': jsonResponse(200, 'The new secret; deliveries from now on are signed with it.', schemaRef('WebhookSecret')), ...bodyErrors },
        { requestBody: { ...jsonRequestBody({ type: 'object', description: 'No fields: send no body or an empty object.' }, { empty: { summary: 'Empty object', value: {} } }), required: false } },
      ),
    },
    '/account/webhooks': {
      get: accountOperation('listWebhooks', 'List account webhook subscriptions', { '200': jsonResponse(200, 'Subscriptions.', schemaRef('WebhookSubscriptionList')) }),
      post: accountOperation(
        'addWebhook',
        'Subscribe a URL to every request that ends',
        { '201': jsonResponse(201, 'Subscribed.', schemaRef('WebhookSubscription')), ...bodyErrors },
        {
          description:
            "Every request of the chosen families (default: scrape, scrape-v1 and parse) of this account that ends is also delivered here, with the same body, headers and signature as a per-request webhook (the n8n trigger uses this). Crawls and batches deliver their end notice (crawl.completed, …), maps their links.",
          requestBody: jsonRequestBody(schemaRef('WebhookSubscriptionRequest'), {
            all: { summary: 'Scrapes and parses', value: { url: 'https://hooks.example.net/gleaner' } },
            crawls: { summary: 'The end of every crawl and batch', value: { url: 'https://hooks.example.net/crawls', families: ['crawl', 'batch'] } },
            parseOnly: { summary: 'Parser only', value: { url: 'https://hooks.example.net/documents', families: ['parse'] } },
          }),
        },
      ),
    },
    '/account/webhooks/{id}': {
      delete: accountOperation('deleteWebhook', 'Remove a webhook subscription', { '204': emptyResponse(204, 'Removed.'), ...notFound('webhook subscription') }, { parameters: idParameter('subscription', 'whsub_01920c4e-7b8a-7cde-8f01-23456789abcd') }),
    },
  },
};
