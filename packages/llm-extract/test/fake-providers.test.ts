import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFakeAnthropic, startFakeOpenAICompatible, type AnthropicScript, type FakeProvider, type JsonObject, type OpenAIScript } from '../../../tests/fakes/llm-providers.js';

// The stand-ins are used by end-to-end tests too, so their protocol checks are tested directly here.

let anthropic: FakeProvider<AnthropicScript>;
let openai: FakeProvider<OpenAIScript>;
beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropic(), startFakeOpenAICompatible({ basePath: '/api/v1' })]);
});
afterAll(async () => {
  await Promise.all([anthropic.close(), openai.close()]);
});

const MESSAGE = { model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as JsonObject };
}

describe('fake Anthropic', () => {
  const url = () => `${anthropic.baseUrl}/v1/messages`;

  it('rejects a missing key (401) and a missing anthropic-version (400) with the contract error body', async () => {
    const noKey = await post(url(), { 'anthropic-version': '2023-06-01' }, MESSAGE);
    expect(noKey.status).toBe(401);
    expect(noKey.json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(noKey.headers.get('request-id')).toMatch(/^req_/);
    const noVersion = await post(url(), { 'x-api-key': 'k' }, MESSAGE);
    expect(noVersion.status).toBe(400);
    expect(noVersion.json).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('accepts x-api-key with 2023-06-01, and rejects temperature under 2026-10-21', async () => {
    const old = await post(url(), { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, { ...MESSAGE, temperature: 0 });
    expect(old.status).toBe(200);
    expect(old.headers.get('content-type')).toContain('application/json');
    const current = await post(url(), { authorization: 'Bearer k', 'anthropic-version': '2026-10-21' }, { ...MESSAGE, temperature: 0 });
    expect(current.status).toBe(400);
  });

  it('accepts only the anthropic-version strings of the contract', async () => {
    for (const version of ['2023-06-01', '2026-10-21']) expect((await post(url(), { 'x-api-key': 'k', 'anthropic-version': version }, MESSAGE)).status).toBe(200);
    for (const version of ['2024-01-01', '2026-10-22', 'latest']) {
      const res = await post(url(), { 'x-api-key': 'k', 'anthropic-version': version }, MESSAGE);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('anthropic-version') } });
    }
  });

  it('reports its per-minute limits in the anthropic-ratelimit-* headers of every answer', async () => {
    const headers = { 'x-api-key': 'k', 'anthropic-version': '2026-10-21' };
    const first = await post(url(), headers, MESSAGE);
    const second = await post(url(), headers, MESSAGE);
    for (const kind of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
      expect(Number(second.headers.get(`anthropic-ratelimit-${kind}-limit`))).toBeGreaterThan(0);
      // RFC 3339, at most a minute away.
      const reset = Date.parse(second.headers.get(`anthropic-ratelimit-${kind}-reset`) ?? '');
      expect(reset - Date.now()).toBeGreaterThan(-1_000);
      expect(reset - Date.now()).toBeLessThanOrEqual(60_000);
    }
    const remaining = (res: { headers: Headers }, kind: string) => Number(res.headers.get(`anthropic-ratelimit-${kind}-remaining`));
    // Both in one window unless a minute boundary fell between them.
    if (first.headers.get('anthropic-ratelimit-requests-reset') === second.headers.get('anthropic-ratelimit-requests-reset')) {
      expect(remaining(first, 'requests') - remaining(second, 'requests')).toBe(1);
      expect(remaining(first, 'input-tokens') - remaining(second, 'input-tokens')).toBe((second.json.usage as JsonObject).input_tokens);
    }
    // Errors carry them too once the caller is known; an unauthenticated request learns nothing.
    expect((await post(url(), { 'x-api-key': 'k' }, MESSAGE)).headers.get('anthropic-ratelimit-requests-limit')).not.toBeNull();
    expect((await post(url(), { 'anthropic-version': '2026-10-21' }, MESSAGE)).headers.get('anthropic-ratelimit-requests-limit')).toBeNull();
  });

  it('answers output_config json_schema as JSON text and a forced tool as tool_use', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 3 }, tags: { type: 'array', items: { enum: ['a', 'b'] } } }, required: ['n'] };
    const headers = { authorization: 'Bearer k', 'anthropic-version': '2026-10-21' };
    const text = await post(url(), headers, { ...MESSAGE, output_config: { format: { type: 'json_schema', schema } } });
    expect(text.json).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    const [block] = text.json.content as JsonObject[];
    expect(JSON.parse(block.text as string)).toEqual({ n: 3, tags: ['a'] });

    const tool = await post(url(), headers, { ...MESSAGE, tools: [{ name: 'pick', input_schema: schema }], tool_choice: { type: 'tool', name: 'pick' } });
    expect(tool.json.stop_reason).toBe('tool_use');
    expect((tool.json.content as JsonObject[])[0]).toMatchObject({ type: 'tool_use', name: 'pick', input: { n: 3, tags: ['a'] } });
    expect((tool.json.usage as JsonObject).input_tokens).toBeGreaterThan(0);

    const unknownTool = await post(url(), headers, { ...MESSAGE, tools: [{ name: 'pick', input_schema: schema }], tool_choice: { type: 'tool', name: 'other' } });
    expect(unknownTool.status).toBe(400);
  });
});

describe('fake OpenAI-compatible', () => {
  it('serves chat completions under its base path with Bearer auth', async () => {
    expect(openai.baseUrl).toMatch(/\/api\/v1$/);
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], response_format: { type: 'json_object' } };
    expect((await post(`${openai.baseUrl}/chat/completions`, {}, body)).status).toBe(401);
    const ok = await post(`${openai.baseUrl}/chat/completions`, { authorization: 'Bearer k' }, body);
    expect(ok.status).toBe(200);
    const [choice] = ok.json.choices as Array<{ message: { content: string }; finish_reason: string }>;
    expect(JSON.parse(choice.message.content)).toEqual({ answer: 'stand-in answer' });
    expect(choice.finish_reason).toBe('stop');
    expect(ok.json.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect((await post(`${openai.baseUrl.replace('/api/v1', '/v1')}/chat/completions`, { authorization: 'Bearer k' }, body)).status).toBe(404);
    expect(openai.requests.map((r) => r.answeredWith)).toEqual([401, 200, 404]);
  });
});
