import { isBlockedAddressError } from '@gleaner/safe-fetch';
import { readBoundedText } from './bounded-body.js';
import { BLOCKED_ADDRESS, deadlineReason, LlmError, TIMED_OUT, UNREACHABLE, isRetryableStatus, reasonForStatus, retryRefusedReason } from './llm-error.js';
import { parseJsonObject } from './json-object.js';
import { repairInstruction, TOOL_NAME, type ModelAnswer, type ModelCall } from './model-call.js';
import { systemPrompt } from './prompt.js';
import { refusedWaitSeconds, retryDelayMs, shouldRetryResponse } from './retry-policy.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

interface ChatCompletion {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown }>;
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

function requestBody(call: ModelCall): string {
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt('json-message') },
    { role: 'user', content: call.userMessage },
  ];
  if (call.repair) {
    messages.push({ role: 'assistant', content: call.repair.previous.raw }, { role: 'user', content: repairInstruction(call.repair.problems, 'json-message') });
  }
  // `strict: false`: strict mode needs every property required and additionalProperties false,
  // which a caller's ordinary schema rarely is; our own validation and repair round cover it.
  const responseFormat = call.callerSchema
    ? { type: 'json_schema', json_schema: { name: TOOL_NAME, schema: call.schema, strict: false } }
    : { type: 'json_object' };
  return JSON.stringify({ model: call.model, messages, response_format: responseFormat, max_completion_tokens: call.maxOutputTokens });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Attempt =
  | { kind: 'answer'; text: string }
  | { kind: 'http-error'; status: number; headers: Headers }
  | { kind: 'no-response'; timedOut: boolean }
  | { kind: 'blocked' };

/** One HTTP attempt, body read included (up to maxResponseBytes), within the per-attempt timeout and the time left. */
async function attempt(call: ModelCall, url: string, body: string): Promise<Attempt> {
  const doFetch = call.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(Math.max(1, Math.min(call.timeoutMs, call.deadline.at - Date.now())));
  try {
    const res = await doFetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${call.apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal,
      // An API endpoint answers itself; following a redirect could carry the key to another host.
      redirect: 'error',
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: 'http-error', status: res.status, headers: res.headers };
    }
    return { kind: 'answer', text: await readBoundedText(res, call.maxResponseBytes) };
  } catch (err) {
    // An answer too large fails the call: the same endpoint would send it again.
    if (err instanceof LlmError) throw err;
    if (isBlockedAddressError(err)) return { kind: 'blocked' };
    return { kind: 'no-response', timedOut: signal.aborted };
  }
}

function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  // A few compatible servers answer with content parts instead of a string.
  if (Array.isArray(content)) {
    return content.map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '')).join('');
  }
  return undefined;
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function answerFrom(call: ModelCall, text: string): ModelAnswer {
  let json: ChatCompletion;
  try {
    json = JSON.parse(text) as ChatCompletion;
  } catch {
    throw new LlmError('provider sent an unexpected answer');
  }
  const usage = { inputTokens: count(json?.usage?.prompt_tokens), outputTokens: count(json?.usage?.completion_tokens) };
  const choice = json?.choices?.[0];
  if (!choice?.message) throw new LlmError('provider sent an unexpected answer', { usage });
  if (typeof choice.message.refusal === 'string' && choice.message.refusal) throw new LlmError('model refused the request', { usage });
  if (choice.finish_reason === 'content_filter') throw new LlmError('model refused the request', { usage });
  const raw = contentText(choice.message.content) ?? '';
  const output = parseJsonObject(raw);
  if (!output) throw new LlmError(choice.finish_reason === 'length' ? 'model answer was cut off (max_tokens)' : 'model returned malformed JSON', { usage });
  return { output, raw, usage, model: typeof json.model === 'string' ? json.model : call.model };
}

/**
 * OpenAI-compatible chat completions (OpenAI, OpenRouter, Ollama, vLLM…) over plain HTTP with
 * `response_format`. There is no SDK here, so the SDKs' retry policy is applied in this loop, the
 * only retry layer for this provider: up to `maxRetries` more attempts after connection errors,
 * timeouts and 408/409/429/5xx answers, waiting as the provider's retry headers say — unless that
 * wait is beyond the cap or the time left before the extraction's deadline, which fails at once.
 */
export async function callOpenAiCompatible(call: ModelCall): Promise<ModelAnswer> {
  const url = `${(call.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  const body = requestBody(call);
  const remaining = () => call.deadline.at - Date.now();
  const outOfTime = () => new LlmError(deadlineReason(call.deadline.ms), { retryable: true });
  for (let retriesDone = 0; ; retriesDone++) {
    if (remaining() <= 0) throw outOfTime();
    const result = await attempt(call, url, body);
    if (result.kind === 'answer') return answerFrom(call, result.text);
    if (result.kind === 'blocked') throw new LlmError(BLOCKED_ADDRESS);
    const canRetry = retriesDone < call.maxRetries;
    if (result.kind === 'no-response') {
      if (remaining() <= 0) throw outOfTime();
      const wait = retryDelayMs(undefined, retriesDone);
      if (canRetry && wait < remaining()) {
        await sleep(wait);
        continue;
      }
      throw new LlmError(result.timedOut ? TIMED_OUT : UNREACHABLE, { retryable: true });
    }
    const failure = new LlmError(reasonForStatus(result.status), { retryable: isRetryableStatus(result.status), status: result.status });
    if (!shouldRetryResponse(result.status, result.headers)) throw failure;
    const refused = refusedWaitSeconds(result.headers, { remainingMs: remaining(), maxWaitMs: call.maxRetryWaitMs });
    if (refused !== undefined) throw new LlmError(retryRefusedReason(result.status, refused), { retryable: true, status: result.status });
    const wait = retryDelayMs(result.headers, retriesDone);
    if (!canRetry || wait >= remaining()) throw failure;
    await sleep(wait);
  }
}
