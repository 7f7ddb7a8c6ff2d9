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
  'RateLimit-Remaining': { description: 'Requests left in the sliding 60 s window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'When refused: seconds until a request may pass (as Retry-After). When allowed: seconds until the oldest request counted in the sliding 60 s window leaves it.', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': { description: 'Present (true) when the submit carried an Idempotency-Key that an earlier submit had used: this is the answer for the request that submit started.', schema: { type: 'string', enum: ['true'] } },
};

/**
 * The Idempotency-Key header of the submit operations. Documented behaviour (docs/api.md, "Idempotent submits"):
 * per account and family, kept as long as the request's record.
 */
export const idempotencyKeyParameter: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    "Makes the submit safe to retry. A submit whose key (per account and API family) already started a request answers for that request instead of starting another: the same request id, 200 with its result if it has ended (waiting out the 20 s window if it still runs), else 202. The key is kept as long as the request's record; after that it starts a new request. The same key with a different body answers 422. 1 to 255 printable ASCII characters (a UUID is a good key); anything else answers 400.",
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  example: '6f1c2b9e-3d4a-4f7e-9b0c-1a2b3c4d5e6f',
};

/** The RFC 7240 `Prefer` header the scraper and the parser honour (docs/api.md, "Waiting"). */
function preferParameter(description: string, example: string): Parameter {
  return { name: 'Prefer', in: 'header', required: false, description, schema: { type: 'string' }, example };
}

export const preferSubmitParameter = preferParameter(
  '`respond-async`: answer 202 with the request id at once instead of waiting up to 20 s for the result (then read the status, e.g. with `Prefer: wait=20`). Answered with `Preference-Applied: respond-async`.',
  'respond-async',
);

export const preferWaitParameter = preferParameter(
  '`wait=N`: while the request runs, wait up to N seconds (at most the 20 s window) for it to end before answering; answered at once when it ends. Answered with `Preference-Applied: wait=N`.',
  'wait=20',
);

/** A submit's 200 or 202: the answer to a retry with the same Idempotency-Key carries Idempotent-Replayed. */
export function submitAnswer(response: Response): Response {
  return { ...response, headers: { ...response.headers, 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } };
}

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
