import { LLM_PROVIDERS, SCOPES, SUBSCRIPTION_FAMILIES } from '@gleaner/store';
import { apiKeySecurity, emptyResponse, errorResponses, jsonRequestBody, jsonResponse, pathParameter, schemaRef, type DocSection } from './doc-builders.js';
import type { Operation, Response, Schema } from './openapi-types.js';

const families: Schema = { type: 'array', minItems: 1, items: { type: 'string', enum: [...SUBSCRIPTION_FAMILIES] } };

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
    properties: {
      credits_used: { type: 'integer', minimum: 0, description: 'Credits spent (the v1 scraper charges one per submit).' },
      requests: {
        type: 'object',
        required: [...SUBSCRIPTION_FAMILIES],
        properties: Object.fromEntries(SUBSCRIPTION_FAMILIES.map((f) => [f, { type: 'integer', minimum: 0 } satisfies Schema])),
      },
      llm_tokens: { type: 'object', required: ['input', 'output'], properties: { input: { type: 'integer', minimum: 0 }, output: { type: 'integer', minimum: 0 } } },
      rate_limit_per_minute: { type: 'integer', minimum: 1 },
    },
  },
  LlmKeyRequest: {
    type: 'object',
    required: ['key'],
    properties: {
      provider: { type: 'string', enum: [...LLM_PROVIDERS], default: 'anthropic' },
      key: { type: 'string', description: 'The provider secret; stored encrypted and never returned.' },
      model: { type: 'string', description: 'Default model for this key.' },
      base_url: { type: 'string', format: 'uri', description: 'Provider base URL (openai-compatible servers, proxies).' },
      label: { type: 'string' },
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
    properties: { url: { type: 'string', format: 'uri', description: 'Public HTTPS endpoint.' }, families: { ...families, default: [...SUBSCRIPTION_FAMILIES] } },
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
  403: 'E004: the key lacks the account scope.',
  429: 'E429: rate limit exceeded.',
  503: 'E006: storage unreachable.',
});
const bodyErrors = errorResponses('ScraperError', { 400: 'E001 malformed body (also an empty body: send {}), E009 invalid value.', 413: 'E001: body over 100 KB.' });
const notFound = (what: string) => errorResponses('ScraperError', { 404: `E002: no such ${what} on this account.` });

function accountOperation(operationId: string, summary: string, responses: Record<string, Response>, extra: Partial<Operation> = {}): Operation {
  return { operationId, summary, tags: ['Account'], security: apiKeySecurity, ...extra, responses: { ...responses, ...authErrors } };
}

const idParameter = (what: string, example: string) => [pathParameter('id', `Id of the ${what}.`, example)];

export const accountDoc: DocSection = {
  schemas,
  paths: {
    '/account': {
      get: accountOperation('getAccount', 'Who am I: account and key', { '200': jsonResponse(200, 'The account and this key.', schemaRef('AccountInfo')) }),
    },
    '/account/usage': {
      get: accountOperation('getUsage', 'Usage and rate limit', { '200': jsonResponse(200, 'Credits, requests by family, LLM tokens, current rate limit.', schemaRef('AccountUsage')) }),
    },
    '/account/llm-keys': {
      get: accountOperation('listLlmKeys', 'List language-model keys (masked)', { '200': jsonResponse(200, 'Keys, newest last; secrets masked.', schemaRef('LlmKeyList')) }),
      post: accountOperation(
        'addLlmKey',
        'Register a language-model key',
        { '201': jsonResponse(201, 'Registered; the secret is never returned.', schemaRef('LlmKey')), ...bodyErrors },
        {
          description: 'The most recently added key is used when a scrape names no llm_key_id.',
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
          description: 'Every scrape, v1 scrape or parse of this account that ends is also delivered here, with the same body, headers and signature as a per-request webhook (the n8n trigger uses this).',
          requestBody: jsonRequestBody(schemaRef('WebhookSubscriptionRequest'), {
            all: { summary: 'Every family', value: { url: 'https://hooks.example.net/gleaner' } },
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
