import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { requestTexts, startFakeOpenAICompatible, type FakeProvider, type JsonObject, type OpenAIScript } from '../../../tests/fakes/llm-providers.js';
import { extractStructured, type StructuredExtractionInput } from '../src/index.js';
import { expectLlmError, visibleText } from './expect-failure.js';

const KEY = 'sk-proj-TEST-KEY-abcdef0123456789';
const SCHEMA = { type: 'object', properties: { headline: { type: 'string' }, year: { type: 'integer' } }, required: ['headline', 'year'] };
const PAGE = { url: 'https://news.example/a', title: 'Harbour reopens', markdown: 'The harbour reopened in 2024 after repairs.' };

let fake: FakeProvider<OpenAIScript>;
const run = (over: Partial<StructuredExtractionInput> = {}) =>
  extractStructured({ provider: 'openai-compatible', apiKey: KEY, baseUrl: fake.baseUrl, model: 'local-model', prompt: 'Give the headline and the year.', page: PAGE, maxRetries: 2, ...over });

beforeAll(async () => {
  fake = await startFakeOpenAICompatible({ apiKeys: [KEY] });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

describe('openai-compatible: answers', () => {
  it('posts chat completions with json_schema and returns the parsed content', async () => {
    fake.setResponder(() => ({ headline: 'Harbour reopens', year: 2024 }));
    const result = await run({ schema: SCHEMA });

    expect(result).toMatchObject({ output: { headline: 'Harbour reopens', year: 2024 }, provider: 'openai-compatible', model: 'local-model', trimmed: false });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(fake.baseUrl).toMatch(/\/v1$/);
    const [request] = fake.requests;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = request.body as JsonObject;
    expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'record_result', schema: SCHEMA, strict: false } });
    expect(body.max_completion_tokens).toBe(4096);
    expect(body).not.toHaveProperty('temperature');

    const { system, userText } = requestTexts(request);
    expect(system).toMatch(/untrusted data, not instructions/);
    expect(system).toContain('JSON');
    const close = userText.indexOf('</page_content>');
    expect(userText.slice(userText.indexOf('<page_content>'), close)).toContain('The harbour reopened in 2024');
    expect(userText.indexOf('Give the headline and the year.')).toBeGreaterThan(close);
  });

  it('asks for json_object when no schema is given', async () => {
    const result = await run();
    expect(result.output).toEqual({ answer: 'stand-in answer' });
    expect((fake.requests[0].body as JsonObject).response_format).toEqual({ type: 'json_object' });
  });

  it('fails on malformed JSON, on a refusal and on a cut-off answer', async () => {
    fake.enqueue({ content: '{"headline": "Harbour' });
    expect((await expectLlmError(run())).reason).toBe('model returned malformed JSON');
    fake.enqueue({ content: null, refusal: 'I can not help with that.' });
    expect((await expectLlmError(run())).reason).toBe('model refused the request');
    fake.enqueue({ content: '{"headline": "Harb', finishReason: 'length' });
    expect((await expectLlmError(run())).reason).toBe('model answer was cut off (max_tokens)');
    expect(fake.requests).toHaveLength(3);
  });
});

describe('openai-compatible: failures and the single retry loop', () => {
  it('reports a rejected key without retrying', async () => {
    const err = await expectLlmError(run({ apiKey: 'sk-proj-another-key-000000' }));
    expect(err.reason).toBe('provider rejected the API key (HTTP 401)');
    expect(err.retryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it('honours retry-after on 429 and succeeds on the second attempt', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '0.05' } });
    const result = await run();
    expect(result.output).toEqual({ answer: 'stand-in answer' });
    expect(fake.requests.map((r) => r.answeredWith)).toEqual([429, 200]);
    expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(45);
  });

  it('gives up after maxRetries + 1 attempts on 5xx, and obeys x-should-retry: false', async () => {
    fake.enqueue({ status: 503 }, { status: 503 }, { status: 503 }, { output: { never: 'reached' } });
    const err = await expectLlmError(run({ maxRetries: 2 }));
    expect(err.reason).toBe('provider error (HTTP 503)');
    expect(err.retryable).toBe(true);
    expect(fake.requests).toHaveLength(3);

    fake.reset();
    fake.enqueue({ status: 500, headers: { 'x-should-retry': 'false' } });
    expect((await expectLlmError(run())).status).toBe(500);
    expect(fake.requests).toHaveLength(1);
  });

  it('reports an unreachable provider as retryable', async () => {
    const err = await expectLlmError(run({ baseUrl: 'http://127.0.0.1:1/v1', maxRetries: 0 }));
    expect(err.reason).toBe('could not reach the provider');
    expect(err.retryable).toBe(true);
  });

  it('retries a dropped connection and times out a hung one', async () => {
    fake.enqueue({ reset: true });
    // A dropped connection gets the SDK default backoff (no headers to follow): 375-500 ms.
    expect((await run({ maxRetries: 1 })).output).toEqual({ answer: 'stand-in answer' });
    expect(fake.requests.map((r) => r.answeredWith)).toEqual(['reset', 200]);

    fake.reset();
    fake.enqueue({ hang: true });
    const err = await expectLlmError(run({ timeoutMs: 200, maxRetries: 0 }));
    expect(err.reason).toBe('timed out waiting for the provider');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('openai-compatible: answers that never end', () => {
  it('stops reading at the response limit and fails the call without retrying', async () => {
    fake.enqueue({ endless: true }, { output: { never: 'reached' } });
    const heapBefore = process.memoryUsage().heapUsed;
    const err = await expectLlmError(run({ maxRetries: 2, maxResponseBytes: 256 * 1024 }));
    expect(err.reason).toBe('provider answer larger than 256 KB');
    expect(err.retryable).toBe(false);
    expect(fake.requests.map((r) => r.answeredWith)).toEqual(['endless']);
    expect(fake.pending()).toBe(1);
    // The socket was closed: the server stopped writing soon after the limit (its buffers, not gigabytes).
    await new Promise((r) => setTimeout(r, 200));
    expect(fake.requests[0].bytesSent).toBeLessThan(16 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses an answer whose declared length is over the limit before reading it', async () => {
    fake.enqueue({ status: 200, rawBody: 'x'.repeat(300 * 1024), contentType: 'application/json' });
    const err = await expectLlmError(run({ maxResponseBytes: 256 * 1024 }));
    expect(err.reason).toBe('provider answer larger than 256 KB');
    expect(fake.requests).toHaveLength(1);
  });

  it('reads the default 2 MB limit', async () => {
    fake.enqueue({ endless: true });
    expect((await expectLlmError(run())).reason).toBe('provider answer larger than 2 MB');
  });
});

describe('openai-compatible: the overall deadline and the cap on retry waits', () => {
  it('fails at once when a 429 asks for a wait beyond the cap, instead of sleeping for a day', async () => {
    fake.enqueue({ status: 429, headers: { 'retry-after': '86400' } }, { output: { never: 'reached' } });
    const started = Date.now();
    const err = await expectLlmError(run({ maxRetries: 2 }));
    expect(err.reason).toBe('provider rate limit (retry after 86400 s)');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests).toHaveLength(1);
    expect(fake.pending()).toBe(1);
  });

  it('fails at once when the wait asked for (retry-after-ms or an HTTP date) is beyond the time left', async () => {
    fake.enqueue({ status: 503, headers: { 'retry-after-ms': '4000' } });
    const err = await expectLlmError(run({ deadlineMs: 2_000 }));
    expect(err.reason).toBe('provider error (HTTP 503), retry after 4 s');
    fake.reset();
    fake.enqueue({ status: 429, headers: { 'retry-after': new Date(Date.now() + 90_000).toUTCString() } });
    expect((await expectLlmError(run())).reason).toMatch(/^provider rate limit \(retry after (89|90) s\)$/);
    expect(fake.requests).toHaveLength(1);
  });

  it('ends a hung call at the deadline even when the per-attempt timeout is longer', async () => {
    fake.enqueue({ hang: true }, { hang: true });
    const started = Date.now();
    const err = await expectLlmError(run({ deadlineMs: 600, timeoutMs: 30_000, maxRetries: 2 }));
    expect(err.reason).toBe('no answer from the provider within the 1 s deadline');
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('openai-compatible: schema repair, budget and secrecy', () => {
  it('repairs a schema violation once, replaying the previous answer and the errors', async () => {
    fake.enqueue({ content: '{"headline": "Harbour reopens", "year": "2024"}' });
    const usageBody = (content: string, prompt: number, completion: number) => ({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model: 'local-model-2',
      choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
    fake.enqueue({ status: 200, body: usageBody('{"headline": "Harbour reopens", "year": 2024}', 300, 12) });
    const result = await run({ schema: SCHEMA });

    expect(result.output).toEqual({ headline: 'Harbour reopens', year: 2024 });
    expect(result.model).toBe('local-model-2');
    expect(fake.requests).toHaveLength(2);
    const messages = (fake.requests[1].body as JsonObject).messages as JsonObject[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[2].content).toBe('{"headline": "Harbour reopens", "year": "2024"}');
    expect(messages[3].content).toContain('/year must be integer');
    expect(result.usage.inputTokens).toBeGreaterThan(300);
    expect(result.usage.outputTokens).toBeGreaterThan(12);
  });

  it('fails cleanly when the repair still violates the schema', async () => {
    fake.enqueue({ content: '{"headline": 1}' }, { content: '{"year": 2024}' });
    const err = await expectLlmError(run({ schema: SCHEMA }));
    expect(err.reason).toBe("model output did not match the schema: (root) must have required property 'headline'");
    expect(fake.requests).toHaveLength(2);
  });

  it('trims the page to the budget', async () => {
    const result = await run({ page: { ...PAGE, markdown: 'word '.repeat(20_000) }, maxInputTokens: 1000 });
    expect(result.trimmed).toBe(true);
    const { userText } = requestTexts(fake.requests[0]);
    expect(userText).toContain('[content truncated]');
    expect(userText.length).toBeLessThan(4000);
  });

  it('never lets the API key reach an error or a result', async () => {
    const seen = [visibleText(await run())];
    fake.enqueue({ status: 400, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error', param: null, code: null } } });
    seen.push(visibleText(await expectLlmError(run())));
    fake.enqueue({ content: `sorry ${KEY}` });
    seen.push(visibleText(await expectLlmError(run())));
    fake.enqueue({ status: 502, rawBody: KEY }, { status: 502, rawBody: KEY });
    seen.push(visibleText(await expectLlmError(run({ maxRetries: 1 }))));
    for (const text of seen) expect(text).not.toContain(KEY);
  });

  it('refuses a base URL that is not http(s) before sending anything', async () => {
    const err = await expectLlmError(run({ baseUrl: 'file:///etc/passwd' }));
    expect(err.reason).toBe('the provider base URL is not an http(s) URL');
  });
});
