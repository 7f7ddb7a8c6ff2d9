import { MAX_USER_FIELDS } from '@gleaner/bot-platform';
import { errorResponses, jsonRequestBody, jsonResponse, schemaRef, type DocSection } from './doc-builders.js';
import type { Schema } from './openapi-types.js';

const step = (extra: Record<string, Schema> = {}, required: string[] = []): Schema => ({
  type: 'object',
  required: ['success', 'message', ...required],
  properties: { success: { type: 'boolean' }, message: { type: 'string' }, ...extra },
});

const schemas: Record<string, Schema> = {
  BotWebhookRequest: {
    type: 'object',
    required: ['phone_number', 'flow_ns'],
    properties: {
      phone_number: { type: 'string', description: 'Digits with country code; spaces, dashes, dots, parentheses and a leading + are removed (8 to 15 digits remain).' },
      flow_ns: { type: 'string', description: 'Namespace of the flow to send.' },
      user_fields: { type: 'object', additionalProperties: { type: 'string' }, description: `Custom field name to string value (at most ${MAX_USER_FIELDS}).` },
    },
  },
  BotWebhookResult: {
    type: 'object',
    description: 'Same shape for 200 (every step succeeded) and 206 (user found or created, a later step failed).',
    required: ['user_ns_retrieval', 'custom_fields_update', 'flow_sent', 'request_id'],
    properties: {
      user_ns_retrieval: step({ user_ns: { type: 'string' } }),
      custom_fields_update: step(
        {
          details: {
            type: 'array',
            items: { type: 'object', required: ['field', 'status'], properties: { field: { type: 'string' }, status: { type: 'string', description: '"updated" or "failed: <reason>".' } } },
          },
        },
        ['details'],
      ),
      flow_sent: step(),
      request_id: { type: 'string', description: 'Also in the X-Request-ID header.' },
    },
  },
  BotError: {
    type: 'object',
    description: 'Error body of the bot webhook.',
    required: ['error', 'request_id'],
    properties: { error: { type: 'string' }, request_id: { type: 'string' }, details: { type: 'array', items: { type: 'string' } } },
  },
};

export const botWebhookDoc: DocSection = {
  schemas,
  paths: {
    '/bot-webhook': {
      post: {
        operationId: 'botWebhook',
        summary: 'Find or create a bot user, set fields, send a flow',
        description:
          'Finds the user by phone (retried up to 3 times), creates it when missing, sets the custom fields, then sends the flow. The bearer token is the bot platform\'s access token: passed through, never stored. Free: costs no credit.',
        tags: ['Bot webhook'],
        security: [{ bearer: [] }],
        requestBody: jsonRequestBody(schemaRef('BotWebhookRequest'), {
          fields: { summary: 'Set fields and send a flow', value: { phone_number: '+1 (415) 555-0134', flow_ns: 'f123456s789', user_fields: { plan: 'pro', city: 'Lisbon' } } },
          flowOnly: { summary: 'Send a flow only', value: { phone_number: '351912345678', flow_ns: 'f123456s789' } },
        }),
        responses: {
          '200': jsonResponse(200, 'Every step succeeded.', schemaRef('BotWebhookResult')),
          '206': jsonResponse(206, 'User found or created; setting fields or sending the flow failed.', schemaRef('BotWebhookResult')),
          ...errorResponses('BotError', {
            400: 'Missing or invalid fields, or a body that is not JSON.',
            401: 'Missing bearer token, or the platform rejected it.',
            404: 'User not found and could not be created.',
            413: 'Body over 100 KB.',
            429: 'Rate limit exceeded: webhook calls per bearer token, or the bot platform requests this token may still make in the current window (Retry-After says when the call fits).',
            500: 'Platform error, the platform not answering in time, or the bot connector not processing the call in time.',
            503: 'Queue unreachable.',
          }),
        },
      },
    },
  },
};
