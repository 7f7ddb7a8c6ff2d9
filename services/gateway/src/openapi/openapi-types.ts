/**
 * The part of the OpenAPI 3.1 object model this service's document uses. Written here rather
 * than taken from a types package so the gateway gains no dependency for a type-only concern;
 * tests validate the result against the official 3.1 schema.
 */

export interface Reference {
  $ref: string;
}

/** JSON Schema 2020-12, as far as the document uses it. */
export interface Schema {
  $ref?: string;
  type?: SchemaType | SchemaType[];
  title?: string;
  description?: string;
  format?: string;
  enum?: ReadonlyArray<string | number | boolean | null>;
  const?: string | number | boolean;
  default?: unknown;
  examples?: unknown[];
  pattern?: string;
  /** JSON Schema 2020-12: a string holding bytes of this media type (OpenAPI 3.1 file uploads). */
  contentMediaType?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  deprecated?: boolean;
}

export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export interface Example {
  summary?: string;
  description?: string;
  value: unknown;
}

export interface MediaType {
  schema: Schema;
  examples?: Record<string, Example>;
  /** multipart/form-data: how each part is sent. */
  encoding?: Record<string, { contentType?: string }>;
}

export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description: string;
  required: boolean;
  schema: Schema;
  example?: unknown;
}

export interface RequestBody {
  description?: string;
  required: boolean;
  content: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  deprecated?: boolean;
  security?: SecurityRequirement[];
  parameters?: Array<Parameter | Reference>;
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItem = Partial<Record<HttpMethod, Operation>>;

export type SecurityScheme =
  | { type: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string; description: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description: string };

export interface Tag {
  name: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; summary?: string; description?: string; license?: { name: string; identifier: string } };
  servers: Array<{ url: string; description?: string }>;
  tags: Tag[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses?: Record<string, Response>;
    headers?: Record<string, Header>;
    parameters?: Record<string, Parameter>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}
