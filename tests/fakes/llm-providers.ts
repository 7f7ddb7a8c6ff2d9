import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Local stand-ins for language-model providers, written from /work/shared/contracts/llm-providers.md:
 * the Anthropic Messages API (§1-5, §8) and OpenAI-compatible chat completions (§9). Each speaks the
 * real wire format, rejects what the real API rejects (missing auth, missing anthropic-version,
 * temperature under API version 2026-10-21), records every request, and answers either from a
 * queue of scripted replies (errors, hangs, resets, text-only or cut-off answers, custom tool input)
 * or, when the queue is empty, with the object a responder function builds from the request.
 */

export type JsonObject = Record<string, unknown>;

export interface RecordedLlmRequest {
  method: string;
  /** Path as requested, e.g. `/v1/messages`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body; undefined when the body was empty or not JSON. */
  body: JsonObject | undefined;
  rawBody: string;
  at: number;
  answeredWith: number | 'hang' | 'reset' | 'endless';
  /** `endless` answers: bytes of body written before the client went away. */
  bytesSent?: number;
}

/** What a responder learns about the request besides the raw body. */
export interface ResponderContext {
  /** The schema the client asked the answer to follow: forced tool's input_schema, output_config or response_format schema. */
  schema: JsonObject | undefined;
  /** System prompt text. */
  system: string;
  /** Every user-role text in order (strings, text blocks, tool_result contents), joined by blank lines. */
  userText: string;
  /** How many messages the conversation has (a repair round has more than one). */
  turns: number;
}

/** Builds the extracted JSON object the fake model answers with. */
export type Responder = (body: JsonObject, context: ResponderContext) => JsonObject;

/** Any HTTP answer; without a body, errors (≥ 400) get the provider's error body for that status. */
export interface ScriptedHttpReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as-is (e.g. non-JSON) with `contentType`, default text/plain. */
  rawBody?: string;
  contentType?: string;
}

/**
 * `endless`: the head (status, default 200, JSON content type) and then a JSON body that never
 * ends, written as fast as the client reads, until it goes away (a tenant's base URL can do this).
 */
export type ScriptedNetworkFault = { hang: true } | { reset: true } | { endless: true; status?: number };

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export type AnthropicScript =
  | ScriptedHttpReply
  | ScriptedNetworkFault
  /** A successful answer carrying this object, in whatever form the request asked for. */
  | { output: JsonObject }
  /** A tool_use block for the forced (or first) tool with exactly this input. */
  | { toolInput: unknown; stopReason?: AnthropicStopReason }
  /** A text-only answer: the model ignored the tool (malformed JSON, prose, refusal, cut off…). */
  | { text: string; stopReason?: AnthropicStopReason };

export type OpenAIFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export type OpenAIScript =
  | ScriptedHttpReply
  | ScriptedNetworkFault
  | { output: JsonObject }
  /** choices[0].message.content exactly as given (null for none). */
  | { content: string | null; refusal?: string; finishReason?: OpenAIFinishReason };

export interface FakeProviderOptions {
  /** Accepted keys; when absent any non-empty key is accepted. */
  apiKeys?: string[];
  /** Address to listen on (default 127.0.0.1; the deploy test's containers reach a host address). */
  host?: string;
  /** Default: `exampleForSchema` of the requested schema (or DEFAULT_FAKE_ANSWER without one). */
  responder?: Responder;
  /**
   * Scripted retryable errors (408, 409, 429, 5xx) that carry no retry header get
   * `retry-after-ms: <this>` so clients retry at once. Default 1; null sends no header.
   */
  retryAfterMs?: number | null;
  /**
   * Anthropic only: per-minute limits reported in the `anthropic-ratelimit-*` headers of every
   * answer (contract §5). Reported, not enforced: scripts play 429s. Defaults are generous.
   */
  rateLimits?: Partial<AnthropicRateLimits>;
}

export interface AnthropicRateLimits {
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

export interface FakeProvider<S> {
  /** What a client is configured with: Anthropic without `/v1`, OpenAI-compatible ending in `/v1`. */
  baseUrl: string;
  /** Every request received, rejected ones included, in arrival order. */
  requests: RecordedLlmRequest[];
  /** Replies for the next requests that pass the protocol checks, one each, in order. */
  enqueue(...replies: S[]): void;
  /** Replies still queued. */
  pending(): number;
  setResponder(responder: Responder): void;
  /** Clears the queue and the request record and restores the default responder. */
  reset(): void;
  close(): Promise<void>;
}

export const DEFAULT_FAKE_ANSWER: JsonObject = { answer: 'stand-in answer' };

// ---------------------------------------------------------------------------------------------
// Default answers

function pickType(schema: JsonObject): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return (t.find((x) => x !== 'null') ?? t[0]) as string | undefined;
  if (typeof t === 'string') return t;
  if (schema.properties) return 'object';
  return undefined;
}

/** A small value that satisfies common JSON Schemas (const, enum, types, required, min bounds). */
export function exampleForSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as JsonObject;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = s[key];
    if (Array.isArray(list) && list.length > 0) return exampleForSchema(list[0]);
  }
  switch (pickType(s)) {
    case 'object': {
      const out: JsonObject = {};
      const props = (s.properties ?? {}) as Record<string, unknown>;
      for (const [name, sub] of Object.entries(props)) out[name] = exampleForSchema(sub);
      for (const name of Array.isArray(s.required) ? (s.required as string[]) : []) if (!(name in out)) out[name] = 'example';
      return out;
    }
    case 'array': {
      const min = typeof s.minItems === 'number' ? s.minItems : 0;
      const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
      const n = Math.min(Math.max(min, 1), max);
      return Array.from({ length: n }, () => exampleForSchema(s.items));
    }
    case 'string': {
      const min = typeof s.minLength === 'number' ? s.minLength : 0;
      return 'example'.padEnd(min, 'x');
    }
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? Math.floor(s.exclusiveMinimum) + 1 : 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'example';
  }
}

function isPermissive(schema: JsonObject | undefined): boolean {
  return !schema || !schema.properties || Object.keys(schema.properties as object).length === 0;
}

const defaultResponder: Responder = (_body, { schema }) =>
  isPermissive(schema) ? { ...DEFAULT_FAKE_ANSWER } : (exampleForSchema(schema) as JsonObject);

// ---------------------------------------------------------------------------------------------
// Shared server machinery

interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  record: RecordedLlmRequest;
}

function tokensFor(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (!block || typeof block !== 'object') return '';
      const b = block as JsonObject;
      if (typeof b.text === 'string') return b.text;
      if (b.type === 'tool_result') return textOf(b.content);
      return '';
    })
    .filter(Boolean)
    .join('\n');
}

function conversationOf(messages: unknown): Array<{ role: string; text: string }> {
  if (!Array.isArray(messages)) return [];
  return messages.map((m) => ({ role: String((m as JsonObject)?.role), text: textOf((m as JsonObject)?.content) }));
}

function isRetryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function sendJson(ex: Exchange, status: number, body: unknown, headers: Record<string, string> = {}): void {
  ex.record.answeredWith = status;
  ex.res.writeHead(status, { 'content-type': 'application/json', ...headers });
  ex.res.end(JSON.stringify(body));
}

/** Writes `{"choices":[{"message":{"content":"xxxx…` without end, keeping up with the client. */
function sendEndlessJson(ex: Exchange, status: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  ex.record.bytesSent = 0;
  ex.res.writeHead(status, { 'content-type': 'application/json' });
  ex.res.write('{"choices":[{"message":{"content":"');
  const pump = () => {
    while (!ex.res.destroyed) {
      ex.record.bytesSent! += chunk.length;
      if (!ex.res.write(chunk)) return void ex.res.once('drain', pump);
    }
  };
  ex.res.on('error', () => undefined);
  pump();
}

interface ServerCore<S> {
  server: http.Server;
  sockets: Set<Socket>;
  queue: S[];
  requests: RecordedLlmRequest[];
  responder: Responder;
}

async function startServer<S>(
  options: FakeProviderOptions,
  handle: (ex: Exchange, core: ServerCore<S>) => void,
): Promise<{ core: ServerCore<S>; origin: string; api: Omit<FakeProvider<S>, 'baseUrl'> }> {
  const core: ServerCore<S> = {
    server: http.createServer(),
    sockets: new Set(),
    queue: [],
    requests: [],
    responder: options.responder ?? defaultResponder,
  };
  core.server.on('connection', (socket) => {
    core.sockets.add(socket);
    socket.on('close', () => core.sockets.delete(socket));
  });
  core.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: JsonObject | undefined;
      try {
        const parsed: unknown = rawBody ? JSON.parse(rawBody) : undefined;
        body = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as JsonObject) : undefined;
      } catch {
        body = undefined;
      }
      const record: RecordedLlmRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, rawBody, at: Date.now(), answeredWith: 0 };
      core.requests.push(record);
      handle({ req, res, record }, core);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => core.server.listen(0, host, resolve));
  const { port } = core.server.address() as AddressInfo;
  const api: Omit<FakeProvider<S>, 'baseUrl'> = {
    requests: core.requests,
    enqueue: (...replies) => void core.queue.push(...replies),
    pending: () => core.queue.length,
    setResponder: (responder) => void (core.responder = responder),
    reset: () => {
      core.queue.length = 0;
      core.requests.length = 0;
      core.responder = options.responder ?? defaultResponder;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hung requests and keep-alive connections would otherwise hold close() open.
        for (const socket of core.sockets) socket.destroy();
        core.server.close(() => resolve());
      }),
  };
  return { core, origin: `http://${host}:${port}`, api };
}

/**
 * Plays a scripted HTTP reply or network fault; returns false when the script is an answer the
 * provider-specific code must build.
 */
function playTransport(
  ex: Exchange,
  script: AnthropicScript | OpenAIScript,
  options: FakeProviderOptions,
  errorBody: (status: number) => unknown,
  extraHeaders: Record<string, string>,
): script is ScriptedHttpReply | ScriptedNetworkFault {
  if ('hang' in script) {
    ex.record.answeredWith = 'hang';
    return true;
  }
  if ('reset' in script) {
    ex.record.answeredWith = 'reset';
    ex.req.socket.destroy();
    return true;
  }
  if ('endless' in script) {
    ex.record.answeredWith = 'endless';
    sendEndlessJson(ex, script.status ?? 200);
    return true;
  }
  if (!('status' in script)) return false;
  const reply = script;
  const headers: Record<string, string> = { ...extraHeaders, ...reply.headers };
  const hasRetryHeader = Object.keys(headers).some((h) => /^retry-after(-ms)?$/i.test(h));
  const retryAfterMs = options.retryAfterMs === undefined ? 1 : options.retryAfterMs;
  if (isRetryable(reply.status) && !hasRetryHeader && retryAfterMs !== null) headers['retry-after-ms'] = String(retryAfterMs);
  if (reply.rawBody !== undefined) {
    ex.record.answeredWith = reply.status;
    ex.res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'text/plain', ...headers });
    ex.res.end(reply.rawBody);
    return true;
  }
  const body = reply.body !== undefined ? reply.body : reply.status >= 400 ? errorBody(reply.status) : {};
  sendJson(ex, reply.status, body, headers);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages API

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function anthropicError(status: number, message?: string): JsonObject {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: message ?? `stand-in ${type}` }, request_id: `req_${randomBytes(12).toString('hex')}` };
}

/** The key a request authenticates with: `x-api-key` (API 2023-06-01 clients) or Bearer (SDK 1.x). */
function presentedKey(headers: http.IncomingHttpHeaders): string | undefined {
  const xApiKey = headers['x-api-key'];
  if (typeof xApiKey === 'string' && xApiKey) return xApiKey;
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

const REJECTED_SAMPLING = ['temperature', 'top_p', 'top_k'];

/** Contract §0: the API versions the two SDK lines send; anything else is refused like the real API does. */
export const ANTHROPIC_VERSIONS = ['2023-06-01', '2026-10-21'];

/**
 * Contract §5: `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 * on answers, reset as an RFC 3339 time. One-minute windows; `tokens` is input plus output.
 */
function anthropicRateLimiter(limits: AnthropicRateLimits) {
  let window = { start: 0, requests: 0, input: 0, output: 0 };
  const roll = () => {
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    if (start !== window.start) window = { start, requests: 0, input: 0, output: 0 };
  };
  return {
    /** Counts a request that passed authentication. */
    request() {
      roll();
      window.requests++;
    },
    /** Counts an answer's tokens, then gives the headers describing what is left. */
    headers(usage?: { input_tokens?: unknown; output_tokens?: unknown }): Record<string, string> {
      roll();
      window.input += Number(usage?.input_tokens ?? 0);
      window.output += Number(usage?.output_tokens ?? 0);
      const reset = new Date(window.start + 60_000).toISOString();
      const kinds: Array<[string, number, number]> = [
        ['requests', limits.requests, window.requests],
        ['tokens', limits.inputTokens + limits.outputTokens, window.input + window.output],
        ['input-tokens', limits.inputTokens, window.input],
        ['output-tokens', limits.outputTokens, window.output],
      ];
      const out: Record<string, string> = {};
      for (const [kind, limit, used] of kinds) {
        out[`anthropic-ratelimit-${kind}-limit`] = String(limit);
        out[`anthropic-ratelimit-${kind}-remaining`] = String(Math.max(0, limit - used));
        out[`anthropic-ratelimit-${kind}-reset`] = reset;
      }
      return out;
    },
  };
}

/** Contract §2 and §0: the request checks the real API makes that a client can get wrong. */
function anthropicRequestProblem(body: JsonObject | undefined, version: string): string | undefined {
  if (!body) return 'request body is not a JSON object';
  if (typeof body.model !== 'string' || !body.model) return 'model: field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return 'max_tokens: field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (version === '2026-10-21') {
    const sent = REJECTED_SAMPLING.filter((f) => f in body);
    if (sent.length) return `${sent.join(', ')}: not supported in API version 2026-10-21`;
  }
  const tools = Array.isArray(body.tools) ? (body.tools as JsonObject[]) : [];
  for (const tool of tools) {
    if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) return 'tools: invalid tool name';
    if (tool.type === undefined || tool.type === 'custom') {
      const schema = tool.input_schema as JsonObject | undefined;
      if (!schema || schema.type !== 'object') return `tools.${tool.name}.input_schema: type must be "object"`;
    }
  }
  const choice = body.tool_choice as JsonObject | undefined;
  if (choice?.type === 'tool' && !tools.some((t) => t.name === choice.name)) return `tool_choice: tool ${String(choice.name)} not found in tools`;
  if ((choice?.type === 'tool' || choice?.type === 'any') && body.thinking && (body.thinking as JsonObject).type === 'enabled') {
    return 'tool_choice: forced tool use is not compatible with thinking';
  }
  return undefined;
}

/** The tool a forced tool_choice names (or the first tool for `any`); undefined when not forced. */
function forcedTool(body: JsonObject): JsonObject | undefined {
  const choice = body.tool_choice as JsonObject | undefined;
  const tools = Array.isArray(body.tools) ? (body.tools as JsonObject[]) : [];
  if (choice?.type === 'tool') return tools.find((t) => t.name === choice.name);
  if (choice?.type === 'any') return tools[0];
  return undefined;
}

function anthropicContext(body: JsonObject): ResponderContext {
  const tool = forcedTool(body);
  const format = (body.output_config as JsonObject | undefined)?.format as JsonObject | undefined;
  const schema = (tool?.input_schema as JsonObject | undefined) ?? (format?.type === 'json_schema' ? (format.schema as JsonObject) : undefined);
  const conversation = conversationOf(body.messages);
  return {
    schema,
    system: textOf(body.system),
    userText: conversation.filter((m) => m.role === 'user').map((m) => m.text).join('\n\n'),
    turns: conversation.length,
  };
}

function anthropicMessage(body: JsonObject, content: JsonObject[], stopReason: AnthropicStopReason): JsonObject {
  return {
    id: `msg_${randomBytes(12).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: tokensFor(JSON.stringify([body.system ?? '', body.messages, body.tools ?? []])),
      output_tokens: tokensFor(JSON.stringify(content)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function toolUse(name: unknown, input: unknown): JsonObject {
  return { type: 'tool_use', id: `toolu_${randomBytes(12).toString('hex')}`, name, input };
}

/** Stand-in for `POST {baseUrl}/v1/messages`. */
export async function startFakeAnthropic(options: FakeProviderOptions = {}): Promise<FakeProvider<AnthropicScript>> {
  const limiter = anthropicRateLimiter({ requests: 4_000, inputTokens: 2_000_000, outputTokens: 400_000, ...options.rateLimits });
  const { origin, api } = await startServer<AnthropicScript>(options, (ex, core) => {
    const requestId = `req_${randomBytes(12).toString('hex')}`;
    let authenticated = false;
    const headers = (usage?: JsonObject) => ({ 'request-id': requestId, ...(authenticated ? limiter.headers(usage) : {}) });
    const send = (status: number, body: JsonObject) => sendJson(ex, status, body, headers(status === 200 ? (body.usage as JsonObject) : undefined));
    const fail = (status: number, message: string) => send(status, { ...anthropicError(status, message), request_id: requestId });

    const path = (ex.req.url ?? '').split('?')[0];
    if (ex.req.method !== 'POST' || path !== '/v1/messages') return fail(404, `${ex.req.method} ${path} not found`);
    const key = presentedKey(ex.req.headers);
    if (!key) return fail(401, 'x-api-key header is required');
    if (options.apiKeys && !options.apiKeys.includes(key)) return fail(401, 'invalid x-api-key');
    authenticated = true;
    limiter.request();
    const version = ex.req.headers['anthropic-version'];
    if (typeof version !== 'string' || !version) return fail(400, 'anthropic-version: header is required');
    if (!ANTHROPIC_VERSIONS.includes(version)) return fail(400, `anthropic-version: "${version}" is not a valid version`);
    if (!(ex.req.headers['content-type'] ?? '').includes('application/json')) return fail(400, 'content-type must be application/json');
    const problem = anthropicRequestProblem(ex.record.body, version);
    if (problem) return fail(400, problem);
    const body = ex.record.body as JsonObject;

    const script = core.queue.shift() ?? { output: core.responder(body, anthropicContext(body)) };
    if (playTransport(ex, script, options, (status) => ({ ...anthropicError(status), request_id: requestId }), headers())) return;
    const tool = forcedTool(body);
    if ('toolInput' in script) {
      const content = [toolUse(tool?.name ?? 'record_result', script.toolInput)];
      return send(200, anthropicMessage(body, content, script.stopReason ?? 'tool_use'));
    }
    if ('text' in script) {
      return send(200, anthropicMessage(body, [{ type: 'text', text: script.text, citations: null }], script.stopReason ?? 'end_turn'));
    }
    // A forced tool answers as tool_use; otherwise (output_config json_schema, or no tool) as JSON text.
    if (tool) return send(200, anthropicMessage(body, [toolUse(tool.name, script.output)], 'tool_use'));
    return send(200, anthropicMessage(body, [{ type: 'text', text: JSON.stringify(script.output), citations: null }], 'end_turn'));
  });
  return { ...api, baseUrl: origin };
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible chat completions

function openAiError(status: number, message?: string): JsonObject {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const code = status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null;
  return { error: { message: message ?? `stand-in ${type}`, type, param: null, code } };
}

function openAiContext(body: JsonObject): ResponderContext {
  const format = body.response_format as JsonObject | undefined;
  const jsonSchema = format?.type === 'json_schema' ? (format.json_schema as JsonObject | undefined) : undefined;
  const conversation = conversationOf(body.messages);
  return {
    schema: jsonSchema?.schema as JsonObject | undefined,
    system: conversation.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.text).join('\n\n'),
    userText: conversation.filter((m) => m.role === 'user').map((m) => m.text).join('\n\n'),
    turns: conversation.filter((m) => m.role !== 'system' && m.role !== 'developer').length,
  };
}

function chatCompletion(body: JsonObject, message: JsonObject, finishReason: OpenAIFinishReason): JsonObject {
  const prompt = tokensFor(JSON.stringify(body.messages));
  const completion = tokensFor(String(message.content ?? message.refusal ?? ''));
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** Stand-in for `POST {baseUrl}/chat/completions`, `baseUrl` ending in `basePath` (default `/v1`). */
export async function startFakeOpenAICompatible(options: FakeProviderOptions & { basePath?: string } = {}): Promise<FakeProvider<OpenAIScript>> {
  const basePath = (options.basePath ?? '/v1').replace(/\/+$/, '');
  const { origin, api } = await startServer<OpenAIScript>(options, (ex, core) => {
    const headers = { 'x-request-id': `req_${randomBytes(12).toString('hex')}` };
    const fail = (status: number, message: string) => sendJson(ex, status, openAiError(status, message), headers);

    const path = (ex.req.url ?? '').split('?')[0];
    if (ex.req.method !== 'POST' || path !== `${basePath}/chat/completions`) return fail(404, `${ex.req.method} ${path} not found`);
    const key = /^Bearer\s+(.+)$/i.exec(ex.req.headers.authorization ?? '')?.[1];
    if (!key) return fail(401, "You didn't provide an API key.");
    if (options.apiKeys && !options.apiKeys.includes(key)) return fail(401, 'Incorrect API key provided.');
    const body = ex.record.body;
    if (!body) return fail(400, 'We could not parse the JSON body of your request.');
    if (typeof body.model !== 'string' || !body.model) return fail(400, 'you must provide a model parameter');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return fail(400, "'messages' must be a non-empty array");
    const format = body.response_format as JsonObject | undefined;
    if (format && !['text', 'json_object', 'json_schema'].includes(String(format.type))) return fail(400, 'response_format.type is invalid');
    if (format?.type === 'json_schema') {
      const js = format.json_schema as JsonObject | undefined;
      if (!js || typeof js.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name)) return fail(400, 'response_format.json_schema.name is invalid');
    }

    const script = core.queue.shift() ?? { output: core.responder(body, openAiContext(body)) };
    if (playTransport(ex, script, options, (status) => openAiError(status), headers)) return;
    if ('content' in script) {
      const message: JsonObject = { content: script.content };
      if (script.refusal !== undefined) message.refusal = script.refusal;
      return sendJson(ex, 200, chatCompletion(body, message, script.finishReason ?? 'stop'), headers);
    }
    return sendJson(ex, 200, chatCompletion(body, { content: JSON.stringify(script.output) }, 'stop'), headers);
  });
  return { ...api, baseUrl: `${origin}${basePath}` };
}

/** Texts a test can assert on: system prompt and user-role text of a recorded request (either provider). */
export function requestTexts(request: RecordedLlmRequest): { system: string; userText: string; turns: number } {
  const body = request.body ?? {};
  const { system, userText, turns } = request.path.startsWith('/v1/messages') ? anthropicContext(body) : openAiContext(body);
  return { system, userText, turns };
}
