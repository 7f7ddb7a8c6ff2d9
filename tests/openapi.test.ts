import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compileErrors, validate } from '@readme/openapi-parser';
import { createGatewayApp } from '@gleaner/gateway';
import { openApiDocument } from '../services/gateway/src/openapi/document.js';
import { HTTP_METHODS, type Operation, type Parameter, type Response, type Schema } from '../services/gateway/src/openapi/openapi-types.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/**
 * The OpenAPI document against the official 3.1 schema, and against the gateway itself: every
 * route express serves is documented, and every documented operation answers with a documented
 * status and a body that matches its documented schema.
 */
const prefix = testPrefix('openapi');
let h: GatewayHarness;
let account: TestAccount;

beforeAll(async () => {
  // No workers run here: submits answer 202 at once (window 0) and the bot call gives up after 1 s.
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '0', BOT_CALL_TIMEOUT_MS: '1000' });
  account = await h.account('openapi-docs');
  await h.stores.accounts.setRateLimit(account.accountId, 10_000);
});

afterAll(async () => {
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
}

const documented: DocumentedOperation[] = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
  HTTP_METHODS.flatMap((method) => (item[method] ? [{ method: method.toUpperCase(), path, operation: item[method]! }] : [])),
);

/**
 * Paths match with and without a trailing slash (API-DECISIONS), so compare them without it; path
 * parameters are compared by position (the document names them as the SPEC does).
 */
const routeKey = (method: string, path: string) => `${method} ${path.replace(/:\w+|\{\w+\}/g, '{}').replace(/(.)\/+$/, '$1')}`;

/** The slice of express 5's router internals that says which routes exist. */
interface RouterLayer {
  rawPath?: string | string[];
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

function expressRoutes(stack: RouterLayer[], mount = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      return Object.keys(layer.route.methods)
        .filter((m) => m !== '_all')
        .map((m) => routeKey(m.toUpperCase(), mount + layer.route!.path));
    }
    if (layer.handle.stack) {
      const path = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      return expressRoutes(layer.handle.stack, mount + path);
    }
    return [];
  });
}

/** The documented schemas, compiled once; a response schema's local $refs point into them. */
const DOC_ID = 'https://gleaner.invalid/openapi.json';
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: DOC_ID, components: { schemas: openApiDocument.components.schemas } });
const compileDocumented = (schema: Schema) => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)));

function schemaProblems(schema: Schema, value: unknown): string | null {
  const check = compileDocumented(schema);
  return check(value) ? null : ajv.errorsText(check.errors);
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    // The validator dereferences in place: give it a copy.
    const result = await validate(structuredClone(openApiDocument) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid ? 'valid' : compileErrors(result)).toBe('valid');
    expect(openApiDocument.openapi).toBe('3.1.0');
  });

  it('catches a broken document (the validator is really validating)', async () => {
    const broken = structuredClone(openApiDocument) as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    broken.paths['/healthz'].get.responses = { '200': { content: {} } }; // a response without its required description
    const result = await validate(broken as unknown as Parameters<typeof validate>[0]);
    expect(result.valid).toBe(false);
  });

  it('gives every POST a request example that matches its request schema', () => {
    for (const { method, path, operation } of documented.filter((d) => d.method === 'POST')) {
      const media = operation.requestBody?.content['application/json'];
      const examples = Object.values(media?.examples ?? {});
      expect({ route: `${method} ${path}`, examples: examples.length > 0 }).toEqual({ route: `${method} ${path}`, examples: true });
      for (const example of examples) expect({ route: path, problems: schemaProblems(media!.schema, example.value) }).toEqual({ route: path, problems: null });
    }
  });

  it('is served at /openapi.json', async () => {
    const res = await fetch(`${h.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
  });
});

describe('the document and the gateway agree', () => {
  it('documents every route the gateway serves, and documents nothing else', () => {
    const app = createGatewayApp(h.gateway.deps, { isReady: async () => true });
    const served = new Set(expressRoutes((app.router as unknown as { stack: RouterLayer[] }).stack));
    const described = new Set(documented.map((d) => routeKey(d.method, d.path)));
    expect([...served].filter((r) => !described.has(r)).sort()).toEqual([]);
    expect([...described].filter((r) => !served.has(r)).sort()).toEqual([]);
  });

  it('answers every documented operation with a documented status and body', async () => {
    const failures: string[] = [];
    for (const { method, path, operation } of documented) {
      const url = h.url + path.replace(/\{(\w+)\}/g, (_m, name: string) => String((operation.parameters as Parameter[]).find((p) => p.name === name)!.example));
      const headers: Record<string, string> = operation.security?.some((s) => 'bearer' in s) ? { authorization: 'Bearer openapi-test-token' } : { 'x-api-key': account.apiKey };
      const example = Object.values(operation.requestBody?.content['application/json'].examples ?? {})[0];
      if (example) headers['content-type'] = 'application/json';
      const res = await fetch(url, { method, headers, body: example ? JSON.stringify(example.value) : undefined });
      const text = await res.text();
      const route = `${method} ${path} → ${res.status}`;
      // Routing misses say "No such endpoint" in every family's format (including the parser's details).
      if (text.includes('No such endpoint')) {
        failures.push(`${route}: not routed (${text})`);
        continue;
      }
      const response = operation.responses[String(res.status)] as Response | undefined;
      if (!response) {
        failures.push(`${route}: status not documented (${text.slice(0, 200)})`);
        continue;
      }
      const media = response.content?.['application/json'];
      if (media) {
        const problems = schemaProblems(media.schema, JSON.parse(text));
        if (problems) failures.push(`${route}: body does not match the documented schema: ${problems} (${text.slice(0, 200)})`);
      } else if (response.content) {
        const [type] = Object.keys(response.content);
        if (!res.headers.get('content-type')?.startsWith(type)) failures.push(`${route}: content type ${res.headers.get('content-type')}, documented ${type}`);
      }
      if (!res.headers.get('x-request-id')) failures.push(`${route}: no X-Request-ID`);
    }
    expect(failures).toEqual([]);
  });
});
