import zlib from 'node:zlib';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { parseBotWebhookRequest } from '@gleaner/bot-platform';
import { serviceEnv } from './support/env.js';
import { errorFormatProblem, familyOfPath, type ErrorFamily } from './support/error-formats.js';
import { startGatewayProcess, type GatewayProcess } from './support/gateway-process.js';
import { rawHttp, type RawRequest, type RawResponse } from './support/raw-http.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { createAccountWithKey, openTestStores, type TestStores } from './support/test-stores.js';
import { reportFigures } from './support/figures.js';

/**
 * Hostile input against a real gateway process: several hundred malformed requests, generated
 * from a seeded PRNG plus hand-picked cases, across the four API families and /account. Every
 * answer must be < 500, in its family's exact error format when it is an error, and carry
 * X-Request-ID; the gateway must still be alive and healthy afterwards.
 */
const prefix = testPrefix('fuzz');
const SECRET = 'fuzz-secret-0123456789abcdef';
const env = serviceEnv(prefix, {
  GLEANER_SECRET: SECRET,
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'false',
  // No workers run: a request that happens to be valid is queued and answered 202 after this window.
  SYNC_WINDOW_MS: '300',
  BOT_CALL_TIMEOUT_MS: '1000',
  // The bot webhook is limited per bearer token at the service default; every bot case uses one token.
  DEFAULT_RATE_LIMIT_PER_MINUTE: '1000000',
});
const SEED = 0x5eed_f022;
let gateway: GatewayProcess;
let test: TestStores;
let apiKey: string;

beforeAll(async () => {
  test = openTestStores(prefix, SECRET);
  gateway = await startGatewayProcess(env);
  apiKey = (await createAccountWithKey(test.stores, 'fuzzer', { ratePerMinute: 1_000_000 })).apiKey;
}, 60_000);

afterAll(async () => {
  await gateway?.process.kill();
  await test?.close();
  await deleteKeysWithPrefix(prefix);
});

// ---------------------------------------------------------------------------------------------
// Deterministic generation

/** mulberry32: small, seedable, good enough to pick cases reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

const PUBLIC_URL = 'http://93.184.215.14/page';
const UUID7 = '0190a000-0000-7000-8000-000000000000';

const ODD_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\u202Egnp.exe\u202C', '\u200F\u05E9\u05DC\u05D5\u05DD', '😀'.repeat(200), '\ud800', 'x\udc00y', '\uFEFF', 'ＡＢＣ１２３',
  'e\u0301\u0301\u0301', 'x'.repeat(5000), '<script>alert(1)</script>', "' OR 1=1 --", '%00', '../../etc/passwd', '\r\nX-Injected: 1', '${jndi:ldap://x/a}', '{{7*7}}',
  'null', 'undefined', 'NaN', '-0', '0x10', 'http://', 'http://[::1', 'javascript:alert(1)', 'file:///etc/passwd', 'https://93.184.215.14/hook', PUBLIC_URL,
  '__proto__', 'constructor', 'plaintext', 'markdown', 'pdf', 'txt', 'anthropic', '+1 555 0100', '573001234567', 'f190385s3400927',
];
const ODD_VALUES: unknown[] = [0, -1, 1.5e308, -1e-308, 42, true, false, null, [], ['a'], [1, [2, [3]]], {}, { a: 1 }, { __proto__: { polluted: true } }, { constructor: { prototype: { x: 1 } } }];
const oddValue = (): unknown => (random() < 0.55 ? pick(ODD_STRINGS) : pick(ODD_VALUES));

const WRONG: Record<'string' | 'boolean' | 'object' | 'array', unknown[]> = {
  string: [42, 0, -1.5, true, false, [], ['x'], {}, { url: PUBLIC_URL }, ''],
  boolean: ['true', 'false', 1, 0, 'yes', [], {}, [true]],
  object: ['x', 1, true, [], [{}], 'null'],
  array: ['scrape', 1, true, {}, [1], [null], ['nope']],
};

type FieldType = keyof typeof WRONG;
interface SubmitEndpoint {
  family: ErrorFamily;
  path: string;
  fields: Record<string, FieldType>;
  /** A body that passes validation when nothing is changed (the public URL is never fetched: no worker runs). */
  valid: Record<string, unknown>;
}

const SUBMITS: SubmitEndpoint[] = [
  { family: 'scraper', path: '/web-scrapper/', fields: { url: 'string', output_type: 'string', use_cache: 'boolean', webhook: 'string', use_llm: 'boolean', prompt: 'string', llm_key_id: 'string', schema: 'object' }, valid: { url: PUBLIC_URL } },
  { family: 'v1', path: '/v1/llm-web-scrapper', fields: { url: 'string', selector: 'string', use_llm: 'boolean', prompt: 'string', webhook: 'string' }, valid: { url: PUBLIC_URL, use_llm: false } },
  { family: 'parser', path: '/documents/parse', fields: { url: 'string', type: 'string', output: 'string', webhook: 'string' }, valid: { url: `${PUBLIC_URL}.pdf` } },
  { family: 'bot', path: '/bot-webhook', fields: { phone_number: 'string', flow_ns: 'string', user_fields: 'object' }, valid: { phone_number: '573001234567', flow_ns: 'f190385s3400927' } },
  { family: 'account', path: '/account/llm-keys', fields: { provider: 'string', key: 'string', model: 'string', base_url: 'string', label: 'string' }, valid: { provider: 'anthropic', key: 'sk-fuzz-0000000000' } },
  { family: 'account', path: '/account/webhooks', fields: { url: 'string', families: 'array' }, valid: { url: 'https://93.184.215.14/hook' } },
];

interface FuzzCase {
  name: string;
  request: RawRequest;
  /** Statuses this case must answer with, when the case is about one specific outcome. */
  expect?: number[];
}

const json = (value: unknown) => JSON.stringify(value);

/** Auth headers a family needs to get past authentication to the part under test. */
function authFor(path: string): Array<[string, string]> {
  return familyOfPath(path) === 'bot' ? [['Authorization', 'Bearer fuzz-platform-token']] : [['x-api-key', apiKey]];
}

function post(name: string, path: string, body: string | Buffer | undefined, headers: Array<[string, string | Buffer]> = [['Content-Type', 'application/json']], expectStatus?: number[]): FuzzCase {
  return { name, request: { method: 'POST', path, headers: [...authFor(path), ...headers], body }, expect: expectStatus };
}

/**
 * A valid bot body would be queued for a bot-connector that does not run here and end in a 500
 * after BOT_CALL_TIMEOUT_MS (the documented answer when the platform side fails). Fuzzing is about
 * malformed input, so a bot body that happens to be valid is broken on purpose.
 */
function keepBotInvalid(endpoint: SubmitEndpoint, body: unknown): unknown {
  if (endpoint.family !== 'bot' || !parseBotWebhookRequest(body).ok) return body;
  return { ...(body as object), phone_number: '12' };
}

function wrongTypeCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const endpoint of SUBMITS) {
    for (const [field, type] of Object.entries(endpoint.fields)) {
      for (const wrong of WRONG[type]) {
        const body = keepBotInvalid(endpoint, { ...endpoint.valid, [field]: wrong });
        cases.push(post(`${endpoint.path} ${field}=${json(wrong)}`, endpoint.path, json(body)));
      }
    }
  }
  return cases;
}

function missingFieldCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const endpoint of SUBMITS) {
    cases.push(post(`${endpoint.path} {}`, endpoint.path, '{}', undefined, [400]));
    for (const field of Object.keys(endpoint.valid)) {
      const body = { ...endpoint.valid };
      delete body[field];
      cases.push(post(`${endpoint.path} without ${field}`, endpoint.path, json(keepBotInvalid(endpoint, body))));
    }
  }
  return cases;
}

function randomBodyCases(perEndpoint: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const endpoint of SUBMITS) {
    const names = [...Object.keys(endpoint.fields), 'extra', '__proto__', 'constructor', '', '\u0000', 'URL', 'url ', '😀'];
    for (let i = 0; i < perEndpoint; i++) {
      const body: Record<string, unknown> = random() < 0.5 ? { ...endpoint.valid } : {};
      const n = 1 + Math.floor(random() * 5);
      for (let j = 0; j < n; j++) body[pick(names)] = oddValue();
      cases.push(post(`${endpoint.path} random #${i}`, endpoint.path, json(keepBotInvalid(endpoint, body))));
    }
  }
  return cases;
}

function bodyShapeCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const deepArray = '['.repeat(10_000) + ']'.repeat(10_000);
  const deepObject = (inner: string) => '{"a":'.repeat(10_000) + inner + '}'.repeat(10_000);
  for (const endpoint of SUBMITS) {
    const { path } = endpoint;
    const valid = keepBotInvalid(endpoint, endpoint.valid) as Record<string, unknown>;
    const validJson = json(valid);
    const shapes: Array<[string, string | Buffer | undefined, number[]?]> = [
      ['no body', undefined, [400]],
      ['empty body', '', [400]],
      ['null', 'null', [400]],
      ['number', '1', [400]],
      ['string', '"url"', [400]],
      ['true', 'true', [400]],
      ['empty array', '[]', [400]],
      ['array of the valid object', `[${validJson}]`, [400]],
      ['truncated', validJson.slice(0, -1), [400]],
      ['trailing comma', validJson.replace(/}$/, ',}'), [400]],
      ['single quotes', validJson.replace(/"/g, "'"), [400]],
      ['NaN', '{"url": NaN}', [400]],
      ['comment', `${validJson}/* c */`, [400]],
      ['two documents', `${validJson}${validJson}`, [400]],
      ['bad escape', '{"url":"\\u12"}', [400]],
      ['raw control char in string', '{"url":"a\u0001b"}', [400]],
      ['lone surrogate escape', '{"url":"\\ud800","prompt":"\\udc00"}'],
      ['invalid UTF-8 bytes', Buffer.concat([Buffer.from('{"url":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')])],
      ['UTF-8 BOM', `\uFEFF${validJson}`],
      ['duplicate keys, wrong type last', validJson.replace(/^{/, '{"url":"x",').replace(/}$/, ',"url":5}')],
      ['duplicate keys, valid last', validJson.replace(/^{/, '{"url":5,')],
      ['10k nested arrays', deepArray, [400]],
      ['10k nested objects as url', `{"url":${deepObject('1')}}`, [400]],
      ['10k nested objects in an extra field', validJson.replace(/}$/, `,"extra":${deepObject('"x"')}}`)],
      ['2k nested arrays in every field', json(Object.fromEntries(Object.keys(valid).map((k) => [k, 0]))).replace(/:0/g, `:${'['.repeat(2000)}${']'.repeat(2000)}`), [400]],
      ['__proto__ pollution', validJson.replace(/}$/, ',"__proto__":{"use_llm":true,"isAdmin":true}}')],
    ];
    for (const [name, body, expectStatus] of shapes) cases.push(post(`${path} ${name}`, path, body, undefined, expectStatus));
  }
  return cases;
}

function sizeCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const LIMIT = 100 * 1024;
  const padded = (valid: Record<string, unknown>, total: number, field = 'pad') => {
    const base = json({ ...valid, [field]: '' });
    return json({ ...valid, [field]: 'x'.repeat(total - Buffer.byteLength(base)) });
  };
  for (const endpoint of SUBMITS) {
    const { path } = endpoint;
    const valid = keepBotInvalid(endpoint, endpoint.valid) as Record<string, unknown>;
    cases.push(post(`${path} exactly 100 KB`, path, padded(valid, LIMIT)));
    cases.push(post(`${path} 100 KB + 1 byte`, path, padded(valid, LIMIT + 1), undefined, [413]));
    cases.push(post(`${path} 2 MB`, path, padded(valid, 2 * 1024 * 1024), undefined, [413]));
    const bigUrl = json({ ...valid, [Object.keys(valid)[0]]: `${PUBLIC_URL}?q=${'a'.repeat(99_000)}` });
    cases.push(post(`${path} 99 KB string in the first field`, path, bigUrl));
    cases.push(post(`${path} 99 KB of emoji`, path, json({ ...valid, prompt: '😀'.repeat(24_000) })));
    // Chunked, no Content-Length: the limit holds while the body streams.
    const chunk = 'x'.repeat(150 * 1024);
    const chunked = `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    cases.push({ name: `${path} 150 KB chunked`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], body: chunked, contentLength: false }, expect: [413] });
    // A gzip bomb: 12 KB on the wire, 10 MB inflated; the limit counts inflated bytes.
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(10 * 1024 * 1024, 0x61), Buffer.from('"}')]));
    cases.push(post(`${path} gzip bomb`, path, bomb, [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip']], [413]));
    cases.push(post(`${path} gzip header, plain body`, path, json(valid), [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip']], [400]));
    cases.push(post(`${path} brotli header, plain body`, path, json(valid), [['Content-Type', 'application/json'], ['Content-Encoding', 'br']], [400]));
    cases.push(post(`${path} unknown encoding`, path, json(valid), [['Content-Type', 'application/json'], ['Content-Encoding', 'x-fuzz']], [400]));
    cases.push(post(`${path} valid gzip`, path, zlib.gzipSync(json(valid)), [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip']]));
  }
  return cases;
}

function contentTypeCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const endpoint of SUBMITS) {
    const { path } = endpoint;
    const body = json(keepBotInvalid(endpoint, endpoint.valid));
    const variants: Array<[string, Array<[string, string]>, string | Buffer, number[]?]> = [
      ['text/plain', [['Content-Type', 'text/plain']], body],
      ['no Content-Type', [], body],
      ['form-urlencoded', [['Content-Type', 'application/x-www-form-urlencoded']], 'url=http%3A%2F%2F93.184.215.14%2F&use_llm=true', [400]],
      ['multipart', [['Content-Type', 'multipart/form-data; boundary=XyZ']], '--XyZ\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttp://93.184.215.14/\r\n--XyZ--\r\n', [400]],
      ['two Content-Types', [['Content-Type', 'text/plain'], ['Content-Type', 'application/json']], body],
      ['empty Content-Type', [['Content-Type', '']], body],
      ['garbage Content-Type', [['Content-Type', ';;;/;=']], body],
      ['charset=latin1', [['Content-Type', 'application/json; charset=latin1']], body, [400]],
      ['charset=utf-7', [['Content-Type', 'application/json; charset=utf-7']], body],
      ['charset=utf-16 with UTF-16 body', [['Content-Type', 'application/json; charset=utf-16le']], Buffer.from(body, 'utf16le')],
      ['charset=utf-16 with UTF-8 body', [['Content-Type', 'application/json; charset=utf-16']], body],
      ['charset=UTF-8 quoted', [['Content-Type', 'application/json; charset="UTF-8"']], body],
      ['two charsets', [['Content-Type', 'application/json; charset=utf-8; charset=koi8-r']], body],
      ['charset=nonsense', [['Content-Type', 'application/json; charset=\u00e9\u00e9']], body, [400]],
      ['application/json-seq', [['Content-Type', 'application/json-seq']], `\u001e${body}\n`, [400]],
    ];
    for (const [name, headers, payload, expectStatus] of variants) cases.push(post(`${path} ${name}`, path, payload, headers, expectStatus));
  }
  return cases;
}

function headerAbuseCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const targets: Array<[string, string, string | undefined]> = [
    ['POST', '/web-scrapper/', json({ url: PUBLIC_URL })],
    ['GET', `/web-scrapper/${UUID7}`, undefined],
    ['POST', '/v1/llm-web-scrapper', json({ url: PUBLIC_URL })],
    ['GET', `/documents/status/${UUID7}`, undefined],
    ['GET', '/account/usage', undefined],
  ];
  const keyHeaders: Array<[string, Array<[string, string | Buffer]>, number[]?]> = [
    ['no key', [], [401]],
    ['empty key', [['x-api-key', '']], [401]],
    ['15 KB key', [['x-api-key', `glk_${'a'.repeat(15_000)}`]], [401]],
    ['20 KB key (over the header limit)', [['x-api-key', `glk_${'a'.repeat(20_000)}`]], [400]],
    ['key with CR', [['x-api-key', `${apiKey.slice(0, 10)}\r${apiKey.slice(10)}`]], [400]],
    ['key with LF', [['x-api-key', `${apiKey.slice(0, 10)}\n${apiKey.slice(10)}`]], [400]],
    ['key with CRLF and an injected header', [['x-api-key', `${apiKey}\r\nX-Admin: 1`]]],
    ['key with NUL', [['x-api-key', Buffer.concat([Buffer.from(apiKey.slice(0, 10)), Buffer.from([0]), Buffer.from(apiKey.slice(10))])]], [400]],
    ['key with raw UTF-8', [['x-api-key', Buffer.from('glk_ключ_😀_\u202E', 'utf8')]], [401]],
    ['key with latin1 bytes', [['x-api-key', Buffer.from([0x67, 0x6c, 0x6b, 0x5f, 0xe9, 0xff])]], [401]],
    ['duplicated valid key', [['x-api-key', apiKey], ['x-api-key', apiKey]], [401]],
    ['valid key then bogus key', [['x-api-key', apiKey], ['x-api-key', 'glk_bogus']], [401]],
    ['key in Authorization: Bearer', [['Authorization', `Bearer ${apiKey}`]], [401]],
    ['key with surrounding whitespace', [['x-api-key', `  ${apiKey}\t`]]],
    ['key in lower/upper mixed header name', [['X-API-KEY', apiKey.toUpperCase()]], [401]],
    // Node 20 keeps the first 1000 header lines and drops the rest (the key check answers 401);
    // Node 24 refuses more than 1000 as a header overflow, answered 400 "Request headers are too large".
    ['1400 extra headers', [['x-api-key', 'glk_nope'], ...Array.from({ length: 1400 }, (_, i): [string, string] => [`h${i}`, '1'])], [401, 400]],
    ['header without a value', [['x-api-key', 'glk_nope'], ['X-Empty', '']], [401]],
  ];
  for (const [method, path, body] of targets) {
    for (const [name, headers, expectStatus] of keyHeaders) {
      cases.push({ name: `${method} ${path} ${name}`, request: { method, path, headers: [['Content-Type', 'application/json'], ...headers], body }, expect: expectStatus });
    }
  }
  const botBody = json({ phone_number: '12', flow_ns: 'f1' });
  const authorizations: Array<[string, Array<[string, string | Buffer]>, number[]]> = [
    ['no Authorization', [], [401]],
    ['Basic', [['Authorization', 'Basic dXNlcjpwYXNz']], [401]],
    ['Bearer without a token', [['Authorization', 'Bearer']], [401]],
    ['Bearer and spaces', [['Authorization', 'Bearer    ']], [401]],
    ['token without Bearer', [['Authorization', 'fuzz-platform-token']], [401]],
    ['Token scheme', [['Authorization', 'Token fuzz-platform-token']], [401]],
    ['two tokens', [['Authorization', 'Bearer a b']], [401]],
    ['5000-char token', [['Authorization', `Bearer ${'t'.repeat(5000)}`]], [401]],
    ['token with raw UTF-8', [['Authorization', Buffer.from('Bearer 令牌😀', 'utf8')]], [400]],
    ['token with CR', [['Authorization', 'Bearer a\rb']], [400]],
    ['duplicated Authorization', [['Authorization', 'Basic x'], ['Authorization', 'Bearer fuzz-platform-token']], [401]],
    ['x-api-key instead of a bearer token', [['x-api-key', apiKey]], [401]],
    ['lowercase bearer', [['Authorization', 'bearer fuzz-platform-token']], [400]],
  ];
  for (const [name, headers, expectStatus] of authorizations) {
    cases.push({ name: `POST /bot-webhook ${name}`, request: { method: 'POST', path: '/bot-webhook', headers: [['Content-Type', 'application/json'], ...headers], body: botBody }, expect: expectStatus });
  }
  // Framing that Node's parser refuses: Content-Length and Transfer-Encoding together, a bad length.
  for (const path of ['/web-scrapper/', '/v1/llm-web-scrapper', '/documents/parse', '/bot-webhook', '/account/llm-keys']) {
    cases.push({ name: `${path} CL+TE`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Length', '5'], ['Transfer-Encoding', 'chunked']], body: '0\r\n\r\n', contentLength: false }, expect: [400] });
    cases.push({ name: `${path} Content-Length: abc`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Length', 'abc']], body: '{}', contentLength: false }, expect: [400] });
    cases.push({ name: `${path} two Content-Lengths`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Length', '2'], ['Content-Length', '3']], body: '{}', contentLength: false }, expect: [400] });
    cases.push({ name: `${path} Expect: 100-continue`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Type', 'application/json'], ['Expect', '100-continue']], body: '{}' } });
    cases.push({ name: `${path} Expect: nonsense`, request: { method: 'POST', path, headers: [...authFor(path), ['Content-Type', 'application/json'], ['Expect', 'x-fuzz']], body: '{}' } });
    cases.push({ name: `${path} no Host`, request: { method: 'POST', path, host: false, headers: [...authFor(path), ['Content-Type', 'application/json']], body: '{}' }, expect: [400] });
    cases.push({ name: `${path} two Hosts`, request: { method: 'POST', path, headers: [...authFor(path), ['Host', 'evil.example'], ['Content-Type', 'application/json']], body: '{}' }, expect: [400] });
    cases.push({ name: `${path} Upgrade: websocket`, request: { method: 'POST', path, headers: [...authFor(path), ['Connection', 'Upgrade'], ['Upgrade', 'websocket'], ['Content-Type', 'application/json']], body: '{}' } });
  }
  return cases;
}

function pathAndMethodCases(): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const longId = 'a'.repeat(5000);
  const paths = [
    '/web-scrapper/%ff', '/web-scrapper/%', '/web-scrapper/%zz', '/web-scrapper/%0a', '/web-scrapper/%0d%0aX-Injected:%201', '/web-scrapper/%00', '/web-scrapper/%E2%80%AE',
    '/web-scrapper/%C0%AF', '/web-scrapper/%F0%9F%98%80', `/web-scrapper/${longId}`, `/web-scrapper/${'9'.repeat(14_000)}`, '/web-scrapper/0190A000-0000-7000-8000-000000000000',
    '/web-scrapper/00000000-0000-4000-8000-000000000000', '/web-scrapper/a/b/c', '/web-scrapper//', '//web-scrapper/', '/WEB-SCRAPPER/x', '/web-scrapper/..', '/web-scrapper/?__proto__[x]=1&a[b][c]=2',
    '/v1/llm-web-scrapper/%ff', '/v1/llm-web-scrapper/%0a', `/v1/llm-web-scrapper/${longId}`, '/v1/llm-web-scrapper/x/y', '/v1/llm-web-scrapper/%2e%2e%2f%2e%2e%2fetc',
    '/documents/status/%ff', '/documents/status/../../x', '/documents/status/..%2f..%2fx', '/documents/status/%2e%2e/%2e%2e/x', '/documents/status/%E2%80%AE', `/documents/status/${longId}`,
    '/documents/status/', '/documents/', '/documents/parse/extra', '/documents/status/a%00b', '/documents/status/%u202e',
    '/account/%ff', '/account/llm-keys/%ff', '/account/llm-keys/%0a', '/account/webhooks/%ff', '/account/../web-scrapper/', '/account/usage/extra',
    '/bot-webhook/%ff', '/bot-webhook/x', '/mcp/%ff', '/mcp/x', '/MCP', '/%ff', '/nowhere', '/web-scrapper%2f', `/${'x'.repeat(12_000)}`,
  ];
  for (const path of paths) {
    const auth = authFor(path);
    cases.push({ name: `GET ${path.slice(0, 80)}`, request: { method: 'GET', path, headers: auth } });
    if (/\/(llm-keys|webhooks)\//.test(path)) cases.push({ name: `DELETE ${path.slice(0, 80)}`, request: { method: 'DELETE', path, headers: auth } });
    if (random() < 0.5) cases.push({ name: `POST ${path.slice(0, 80)}`, request: { method: 'POST', path, headers: [...auth, ['Content-Type', 'application/json']], body: '{}' } });
  }
  // Raw bytes and proxy-style targets in the request line.
  cases.push({ name: 'raw UTF-8 in the path', request: { method: 'GET', path: Buffer.from('/web-scrapper/ключ😀', 'utf8').toString('latin1'), headers: authFor('/web-scrapper/') }, expect: [400] });
  cases.push({ name: 'absolute-form target', request: { method: 'GET', path: `http://evil.example/web-scrapper/${UUID7}`, headers: authFor('/web-scrapper/') } });
  cases.push({ name: 'asterisk target', request: { method: 'OPTIONS', path: '*', headers: [] } });
  cases.push({ name: 'CONNECT authority-form', request: { method: 'CONNECT', path: '127.0.0.1:6379', headers: [] }, expect: [404] });
  cases.push({ name: 'CONNECT to a family path', request: { method: 'CONNECT', path: '/documents/parse', headers: authFor('/documents/parse') } });

  const methods = ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'LINK', 'get', 'FUZZ', 'G\u00c9T'];
  const bases = ['/web-scrapper/', `/web-scrapper/${UUID7}`, '/v1/llm-web-scrapper', `/v1/llm-web-scrapper/${UUID7}`, '/documents/parse', `/documents/status/${UUID7}`, '/bot-webhook', '/account', '/account/usage', '/account/llm-keys', '/account/webhook-secret', '/mcp'];
  for (const path of bases) {
    for (const method of methods) {
      cases.push({ name: `${method} ${path}`, request: { method, path, headers: [...authFor(path), ['Content-Type', 'application/json']], body: '{"url":"x"}' } });
    }
    cases.push({ name: `HEAD ${path}`, request: { method: 'HEAD', path, headers: authFor(path) } });
    cases.push({ name: `GET ${path} with a body`, request: { method: 'GET', path, headers: [...authFor(path), ['Content-Type', 'application/json']], body: '{"url":' } });
  }
  return cases;
}

function allCases(): FuzzCase[] {
  return [...wrongTypeCases(), ...missingFieldCases(), ...randomBodyCases(30), ...bodyShapeCases(), ...sizeCases(), ...contentTypeCases(), ...headerAbuseCases(), ...pathAndMethodCases()];
}

// ---------------------------------------------------------------------------------------------
// Checking

function problemsOf(c: FuzzCase, res: RawResponse): string[] {
  const problems: string[] = [];
  if (!(res.status >= 100 && res.status < 500)) problems.push(`status ${res.status}`);
  if (c.expect && !c.expect.includes(res.status)) problems.push(`status ${res.status}, expected ${c.expect.join(' or ')}`);
  const requestId = res.headers['x-request-id'];
  if (!requestId || !/^[0-9a-f-]{36}$/i.test(requestId)) problems.push(`X-Request-ID ${JSON.stringify(requestId)}`);
  const family = familyOfPath(c.request.path.replace(/^http:\/\/[^/]+/, ''));
  if (c.request.method === 'HEAD') return problems;
  if (res.status >= 400) {
    const problem = errorFormatProblem(family, res.json, res.status, requestId);
    if (problem) problems.push(`${family} format: ${problem} (body ${res.body.slice(0, 160)})`);
  } else if (res.status !== 204 && res.json === undefined) {
    problems.push(`a ${res.status} answer that is not JSON: ${res.body.slice(0, 120)}`);
  }
  return problems;
}

async function runAll(cases: FuzzCase[], concurrency: number): Promise<Array<{ c: FuzzCase; res?: RawResponse; problems: string[] }>> {
  const results: Array<{ c: FuzzCase; res?: RawResponse; problems: string[] }> = [];
  const queue = [...cases];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        try {
          const res = await rawHttp(gateway.port, c.request);
          results.push({ c, res, problems: problemsOf(c, res) });
        } catch (err) {
          results.push({ c, problems: [`no answer: ${(err as Error).message}`] });
        }
      }
    }),
  );
  return results;
}

it('answers every malformed request below 500, in its family format, with X-Request-ID, and stays healthy', async () => {
  const started = Date.now();
  const cases = allCases();
  expect(cases.length).toBeGreaterThanOrEqual(500);
  const results = await runAll(cases, 6);

  const failures = results.filter((r) => r.problems.length > 0).map((r) => `${r.c.name}: ${r.problems.join('; ')}`.slice(0, 400));
  const byStatus: Record<number, number> = {};
  for (const r of results) if (r.res) byStatus[r.res.status] = (byStatus[r.res.status] ?? 0) + 1;
  reportFigures(`fuzz: ${results.length} requests (seed ${SEED.toString(16)}) in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(byStatus)}`);
  expect(failures).toEqual([]);

  // The run is about errors: most answers are 4xx, and every family answered some of them.
  const errors = results.filter((r) => r.res && r.res.status >= 400);
  expect(errors.length / results.length).toBeGreaterThan(0.85);
  const families = ['scraper', 'v1', 'parser', 'bot', 'account'] as const;
  const errorsPerFamily = Object.fromEntries(families.map((f) => [f, errors.filter((r) => familyOfPath(r.c.request.path) === f).length]));
  expect(Object.fromEntries(families.map((f) => [f, errorsPerFamily[f] > 20]))).toEqual(Object.fromEntries(families.map((f) => [f, true])));
  expect(byStatus[413]).toBeGreaterThanOrEqual(SUBMITS.length * 4);

  // Still alive, still healthy, and nothing went down the unexpected-error path.
  expect(gateway.alive()).toBe(true);
  const health = await fetch(`${gateway.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
  expect(gateway.process.output()).not.toMatch(/unhandled error|uncaught|unhandledRejection/i);
}, 120_000);
