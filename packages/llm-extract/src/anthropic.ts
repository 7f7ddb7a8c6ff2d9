import Anthropic from '@anthropic-ai/sdk';
import { isBlockedAddressError } from '@gleaner/safe-fetch';
import { BLOCKED_ADDRESS, deadlineReason, LlmError, TIMED_OUT, UNREACHABLE, isRetryableStatus, reasonForStatus, retryRefusedReason } from './llm-error.js';
import { boundedStream, ERROR_BODY_BYTES, tooLargeReason } from './bounded-body.js';
import { parseJsonObject } from './json-object.js';
import { repairInstruction, TOOL_NAME, type ModelAnswer, type ModelCall } from './model-call.js';
import { systemPrompt } from './prompt.js';
import { refusedWaitSeconds, shouldRetryResponse } from './retry-policy.js';

type MessageParam = Anthropic.MessageParam;

/** The conversation: the page message, and for a repair the previous answer and what was wrong. */
function messagesFor(call: ModelCall): MessageParam[] {
  const messages: MessageParam[] = [{ role: 'user', content: call.userMessage }];
  const repair = call.repair;
  if (!repair) return messages;
  const feedback = repairInstruction(repair.problems, 'tool');
  if (repair.previous.toolUseId) {
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: repair.previous.toolUseId, name: TOOL_NAME, input: repair.previous.output }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: repair.previous.toolUseId, is_error: true, content: feedback }] },
    );
  } else {
    messages.push({ role: 'assistant', content: repair.previous.raw }, { role: 'user', content: feedback });
  }
  return messages;
}

function failureFromSdk(err: unknown): LlmError {
  if (err instanceof Anthropic.APIConnectionTimeoutError) return new LlmError(TIMED_OUT, { retryable: true });
  if (err instanceof Anthropic.APIError && typeof err.status === 'number') {
    return new LlmError(reasonForStatus(err.status), { retryable: isRetryableStatus(err.status), status: err.status });
  }
  // An APIError without a status is a connection failure (APIConnectionError).
  if (err instanceof Anthropic.APIError) return new LlmError(UNREACHABLE, { retryable: true });
  // Refused by the SDK before sending; its message is not ours to show (it may quote options).
  return new LlmError('the language-model request could not be made');
}

/** Why the call was stopped from outside the SDK's own error handling; read after it throws. */
interface Stop {
  reason?: string;
  status?: number;
}

/** `res` with its body replaced (the same status and headers). */
function withBody(res: Response, body: ReadableStream<Uint8Array> | null, headers = res.headers): Response {
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * The fetch the SDK uses, wrapped with the limits the SDK lacks. A provider asking (429/5xx
 * with `retry-after`) for a wait beyond the cap or the time left gets `x-should-retry: false`
 * added to its answer, so the SDK fails at once instead of sleeping; the guard refusing the
 * provider's address aborts the call, so the SDK does not retry a refusal as a connection error.
 * Bodies are read through a byte counter, since the SDK reads them whole (`response.json()`, and
 * `response.text()` for error answers): an answer past `maxResponseBytes` fails the call, and an
 * error answer is cut at ERROR_BODY_BYTES (only its status is used).
 */
function limitedFetch(call: ModelCall, stop: Stop, abort: AbortController): typeof globalThis.fetch {
  const base = call.fetch ?? globalThis.fetch;
  return async (input, init) => {
    let res: Response;
    try {
      res = await base(input, init);
    } catch (err) {
      if (isBlockedAddressError(err)) {
        stop.reason = BLOCKED_ADDRESS;
        abort.abort();
      }
      throw err;
    }
    if (res.ok) {
      if (!res.body) return res;
      const tooLarge = () => {
        stop.reason = tooLargeReason(call.maxResponseBytes);
        abort.abort();
      };
      return withBody(res, boundedStream(res.body, call.maxResponseBytes, new Error(tooLargeReason(call.maxResponseBytes)), tooLarge));
    }
    const body = res.body && boundedStream(res.body, ERROR_BODY_BYTES, null);
    if (!shouldRetryResponse(res.status, res.headers)) return withBody(res, body);
    const refused = refusedWaitSeconds(res.headers, { remainingMs: call.deadline.at - Date.now(), maxWaitMs: call.maxRetryWaitMs });
    if (refused === undefined) return withBody(res, body);
    stop.reason = retryRefusedReason(res.status, refused);
    stop.status = res.status;
    const headers = new Headers(res.headers);
    headers.set('x-should-retry', 'false');
    return withBody(res, body, headers);
  };
}

/**
 * Anthropic through its SDK (pinned at 1.12: API version 2026-10-21, Bearer auth, and no
 * temperature/top_p/top_k, which that version rejects). A forced tool whose input schema is the
 * caller's schema makes the answer a JSON object. The SDK's retries (408/409/429/5xx/529,
 * connection errors, timeouts, retry-after honoured) are the only retry layer for this provider;
 * the whole call, retries and their waits included, ends at the extraction's deadline.
 */
export async function callAnthropic(call: ModelCall): Promise<ModelAnswer> {
  const remainingMs = call.deadline.at - Date.now();
  if (remainingMs <= 0) throw new LlmError(deadlineReason(call.deadline.ms), { retryable: true });
  const stop: Stop = {};
  const abort = new AbortController();
  const deadlineTimer = setTimeout(() => abort.abort(), remainingMs);
  let message: Anthropic.Message;
  try {
    const client = new Anthropic({ apiKey: call.apiKey, baseURL: call.baseUrl, timeout: call.timeoutMs, maxRetries: call.maxRetries, fetch: limitedFetch(call, stop, abort) });
    message = await client.messages.create(
      {
        model: call.model,
        max_tokens: call.maxOutputTokens,
        system: systemPrompt('tool'),
        messages: messagesFor(call),
        tools: [{ name: TOOL_NAME, description: 'Record the data extracted from the page as one JSON object.', input_schema: call.schema as Anthropic.Tool.InputSchema }],
        tool_choice: { type: 'tool', name: TOOL_NAME },
      },
      { signal: abort.signal, timeout: Math.min(call.timeoutMs, remainingMs) },
    );
  } catch (err) {
    if (stop.reason) throw new LlmError(stop.reason, { retryable: stop.status !== undefined, status: stop.status });
    if (abort.signal.aborted) throw new LlmError(deadlineReason(call.deadline.ms), { retryable: true });
    throw failureFromSdk(err);
  } finally {
    clearTimeout(deadlineTimer);
  }
  // The SDK does no runtime validation and hands back raw text for a non-JSON body.
  if (!message || typeof message !== 'object' || !Array.isArray(message.content)) {
    throw new LlmError('provider sent an unexpected answer');
  }
  const u = message.usage;
  const usage = {
    inputTokens: (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0),
    outputTokens: u?.output_tokens ?? 0,
  };
  const model = typeof message.model === 'string' ? message.model : call.model;
  const fail = (reason: string) => new LlmError(reason, { usage });

  if (message.stop_reason === 'refusal') throw fail('model refused the request');
  // A tool call cut off by max_tokens may carry partial input that would look like a valid answer.
  if (message.stop_reason === 'max_tokens' && message.content.some((b) => b.type === 'tool_use')) {
    throw fail('model answer was cut off (max_tokens)');
  }
  const tool = message.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use' && b.name === TOOL_NAME);
  if (tool) {
    if (!tool.input || typeof tool.input !== 'object' || Array.isArray(tool.input)) throw fail('model returned malformed JSON');
    return { output: tool.input as Record<string, unknown>, raw: JSON.stringify(tool.input), toolUseId: tool.id, usage, model };
  }
  // No tool call (the model answered in prose): accept a JSON object written as text.
  const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const parsed = parseJsonObject(text);
  if (parsed) return { output: parsed, raw: text, usage, model };
  throw fail(message.stop_reason === 'max_tokens' ? 'model answer was cut off (max_tokens)' : 'model returned malformed JSON');
}
