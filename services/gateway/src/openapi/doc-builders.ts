import type { Example, Header, Operation, Parameter, PathItem, Reference, RequestBody, Response, Schema } from './openapi-types.js';

/** One API family's share of the document: its paths and the component schemas they name. */
export interface DocSection {
  schemas: Record<string, Schema>;
  paths: Record<string, PathItem>;
}

export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });

/** Headers every answer of the gateway may carry, defined once in components. */
export const commonHeaders: Record<string, Header> = {
  'X-Request-ID': { description: 'The request id where one exists (submit and status answers), else an id for this HTTP exchange.', required: true, schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed per minute for this key (or bearer token).', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
};

/** Headers of an answer with this status: every answer has X-Request-ID; 429 and 503 say when to retry. */
function headersFor(status: number): Record<string, Reference> {
  const headers: Record<string, Reference> = { 'X-Request-ID': headerRef('X-Request-ID') };
  if (status === 429) {
    for (const name of ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) headers[name] = headerRef(name);
  }
  if (status === 503) headers['Retry-After'] = headerRef('Retry-After');
  return headers;
}

export function jsonResponse(status: number, description: string, schema: Schema, example?: unknown): Response {
  const media = example === undefined ? { schema } : { schema, examples: { example: { value: example } } };
  return { description, headers: headersFor(status), content: { 'application/json': media } };
}

export function emptyResponse(status: number, description: string): Response {
  return { description, headers: headersFor(status) };
}

/** Error answers of one family: every status shares the family's error body schema. */
export function errorResponses(errorSchema: string, statuses: Record<number, string>): Record<string, Response> {
  const responses: Record<string, Response> = {};
  for (const [status, description] of Object.entries(statuses)) responses[status] = jsonResponse(Number(status), description, schemaRef(errorSchema));
  return responses;
}

export function jsonRequestBody(schema: Schema, examples: Record<string, Example>, description?: string): RequestBody {
  return { ...(description ? { description } : {}), required: true, content: { 'application/json': { schema, examples } } };
}

export function pathParameter(name: string, description: string, example: string): Parameter {
  return { name, in: 'path', description, required: true, schema: { type: 'string' }, example };
}

/** A fixed UUIDv7 for examples (request ids are UUIDv7: their creation time can be read back). */
export const EXAMPLE_REQUEST_ID = '01920c4e-7b8a-7cde-8f01-23456789abcd';

export const apiKeySecurity: Operation['security'] = [{ apiKey: [] }];

/** Strings that are either absent or explicitly null in requests. */
export const nullableString = (description: string, format?: string): Schema => ({ type: ['string', 'null'], description, ...(format ? { format } : {}) });
