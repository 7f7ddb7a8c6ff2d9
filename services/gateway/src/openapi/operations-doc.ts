import { jsonResponse, schemaRef, type DocSection } from './doc-builders.js';
import type { Operation, Response } from './openapi-types.js';

const textResponse = (description: string, contentType: string): Response => ({
  description,
  headers: { 'X-Request-ID': { $ref: '#/components/headers/X-Request-ID' } },
  content: { [contentType]: { schema: { type: 'string' } } },
});

/** Unauthenticated endpoints for operators, tooling and browsers. */
const open = (operationId: string, summary: string, responses: Operation['responses'], description?: string): Operation => ({
  operationId,
  summary,
  ...(description ? { description } : {}),
  tags: ['Operations'],
  security: [],
  responses,
});

export const operationsDoc: DocSection = {
  schemas: {
    Health: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } },
    Readiness: { type: 'object', required: ['ready'], properties: { ready: { type: 'boolean' } } },
  },
  paths: {
    '/healthz': { get: open('healthz', 'Liveness', { '200': jsonResponse(200, 'The process is alive.', schemaRef('Health')) }) },
    '/readyz': {
      get: open('readyz', 'Readiness', {
        '200': jsonResponse(200, 'Redis is reachable and the gateway accepts requests.', schemaRef('Readiness'), { ready: true }),
        '503': jsonResponse(503, 'Not ready (Redis unreachable, or shutting down).', schemaRef('Readiness'), { ready: false }),
      }),
    },
    '/metrics': { get: open('metrics', 'Prometheus metrics', { '200': textResponse('Metrics in the Prometheus text format (HTTP requests, queue depths).', 'text/plain') }) },
    '/openapi.json': { get: open('openApiDocument', 'This OpenAPI document', { '200': jsonResponse(200, 'OpenAPI 3.1 document.', { type: 'object' }) }) },
    '/docs': { get: open('docsPage', 'API reference page', { '200': textResponse('This document rendered as HTML.', 'text/html') }) },
    '/docs/style.css': { get: open('docsStyle', 'Stylesheet of the reference page', { '200': textResponse('CSS.', 'text/css') }) },
    '/console': {
      get: open(
        'consolePage',
        'Account console',
        { '200': textResponse('The console page: sign in with an API key that has the account scope.', 'text/html'), '500': textResponse('The console could not be built (see the gateway log).', 'text/plain') },
        'A browser console over the /account endpoints and the APIs (usage, API keys, LLM keys, webhooks, recent requests, a playground). The key is kept in the tab\'s session storage and sent as x-api-key.',
      ),
    },
    '/console/app.js': { get: open('consoleScript', 'Script of the console', { '200': textResponse('JavaScript module.', 'text/javascript') }) },
    '/console/app.css': { get: open('consoleStyle', 'Stylesheet of the console', { '200': textResponse('CSS.', 'text/css') }) },
  },
};
