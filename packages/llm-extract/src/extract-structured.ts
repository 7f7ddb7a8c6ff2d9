import { callAnthropic } from './anthropic.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './bounded-body.js';
import { LlmError, type TokenUsage } from './llm-error.js';
import type { ModelAnswer, ModelCall } from './model-call.js';
import { callOpenAiCompatible } from './openai-compatible.js';
import { buildUserMessage, DEFAULT_INPUT_TOKEN_BUDGET, systemPrompt, type PageForModel } from './prompt.js';
import { MAX_RETRY_WAIT_MS } from './retry-policy.js';
import { compileOutputSchema, providerSchema, type JsonSchema } from './schema-validator.js';

export type LlmProviderName = 'anthropic' | 'openai-compatible';

export interface StructuredExtractionInput {
  provider: LlmProviderName;
  apiKey: string;
  /** Defaults to DEFAULT_MODELS[provider]. */
  model?: string;
  /** Anthropic: without `/v1` (the SDK adds it). OpenAI-compatible: ending in `/v1`. */
  baseUrl?: string;
  /** The caller's extraction request; it is the only text the model is told to follow. */
  prompt: string;
  page: PageForModel;
  /** JSON Schema (draft 07, 2019-09 or 2020-12) the answer must satisfy; without one any JSON object is accepted. */
  schema?: JsonSchema;
  /** Budget for the whole model input, about 4 characters a token; the page content is trimmed to fit. */
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** Per attempt. */
  timeoutMs?: number;
  /** Further attempts after a transient failure (the SDKs' meaning); 0 disables retries. */
  maxRetries?: number;
  /**
   * Time for the whole extraction: every attempt, every wait before a retry and the repair round.
   * A provider asking to be retried later than this allows fails the extraction at once.
   */
  deadlineMs?: number;
  /** Longest provider-requested wait (`retry-after`) before a retry that is honoured. */
  maxRetryWaitMs?: number;
  /** Largest answer body read from the provider (default 2 MB); a longer one fails the extraction. */
  maxResponseBytes?: number;
  /** Replaces global fetch for the provider calls, e.g. with one that refuses private addresses. */
  fetch?: typeof globalThis.fetch;
}

export interface StructuredExtraction {
  output: Record<string, unknown>;
  /** Summed over every call made, the repair round included. */
  usage: TokenUsage;
  /** True when the page content was cut to fit the input budget (the model was told). */
  trimmed: boolean;
  /** The model that answered, as the provider names it. */
  model: string;
  provider: LlmProviderName;
}

// claude-sonnet-4-5 reaches end-of-life on 2026-11-30 (SDK 1.12 warns on every call), hence 5.5.
export const DEFAULT_MODELS: Record<LlmProviderName, string> = { anthropic: 'claude-sonnet-5-5', 'openai-compatible': 'gpt-4o-mini' };
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
export const DEFAULT_DEADLINE_MS = 120_000;
export { MAX_RETRY_WAIT_MS, DEFAULT_MAX_RESPONSE_BYTES };

const PROVIDERS: Record<LlmProviderName, (call: ModelCall) => Promise<ModelAnswer>> = {
  anthropic: callAnthropic,
  'openai-compatible': callOpenAiCompatible,
};

function checkInput(input: StructuredExtractionInput): void {
  if (!Object.hasOwn(PROVIDERS, input.provider)) throw new LlmError('unknown language-model provider');
  if (!input.apiKey) throw new LlmError('no API key was given');
  if (input.baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(input.baseUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new LlmError('the provider base URL is not an http(s) URL');
  }
  if (input.maxRetries !== undefined && !(Number.isInteger(input.maxRetries) && input.maxRetries >= 0)) throw new LlmError('maxRetries must be a non-negative integer');
  const positive = { maxInputTokens: input.maxInputTokens, maxOutputTokens: input.maxOutputTokens, timeoutMs: input.timeoutMs, deadlineMs: input.deadlineMs, maxRetryWaitMs: input.maxRetryWaitMs, maxResponseBytes: input.maxResponseBytes };
  for (const [name, value] of Object.entries(positive)) {
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) throw new LlmError(`${name} must be a positive integer`);
  }
}

/** Anything a provider or the SDK might have echoed: the key never leaves this function. */
function withoutKey(err: LlmError, apiKey: string, usage: TokenUsage): LlmError {
  // Short strings are not worth scrubbing (and would mangle the wording); real keys are long.
  const reason = apiKey.length >= 8 ? err.reason.split(apiKey).join('[redacted]') : err.reason;
  const total = { inputTokens: usage.inputTokens + (err.usage?.inputTokens ?? 0), outputTokens: usage.outputTokens + (err.usage?.outputTokens ?? 0) };
  return new LlmError(reason, { retryable: err.retryable, status: err.status, usage: total });
}

/**
 * Runs the caller's prompt over a page with a language model and returns its answer as a JSON
 * object. The page goes to the model fenced as untrusted data. With a schema the answer is
 * validated, and if it violates the schema the model gets exactly one repair round (told what was
 * wrong); a second violation fails. Retries of transient failures happen inside the provider call
 * (SDK for Anthropic, the same policy by hand for OpenAI-compatible) and nowhere else.
 */
export async function extractStructured(input: StructuredExtractionInput): Promise<StructuredExtraction> {
  checkInput(input);
  const deadlineMs = input.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const deadline = { at: Date.now() + deadlineMs, ms: deadlineMs };
  const validator = input.schema ? compileOutputSchema(input.schema) : undefined;
  const schema = providerSchema(input.schema);
  const model = input.model || DEFAULT_MODELS[input.provider];
  const overheadChars = systemPrompt('tool').length + JSON.stringify(schema).length;
  const budgetTokens = input.maxInputTokens ?? DEFAULT_INPUT_TOKEN_BUDGET;
  const { text, trimmed } = buildUserMessage(input.page, input.prompt, { budgetTokens, overheadChars });

  const base: ModelCall = {
    apiKey: input.apiKey,
    model,
    baseUrl: input.baseUrl,
    userMessage: text,
    schema,
    callerSchema: input.schema !== undefined,
    maxOutputTokens: input.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    timeoutMs: input.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: input.maxRetries ?? DEFAULT_MAX_RETRIES,
    deadline,
    maxRetryWaitMs: input.maxRetryWaitMs ?? MAX_RETRY_WAIT_MS,
    maxResponseBytes: input.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    fetch: input.fetch,
  };
  const call = PROVIDERS[input.provider];
  const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
  const counted = async (c: ModelCall): Promise<ModelAnswer> => {
    const answer = await call(c);
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    return answer;
  };
  const done = (answer: ModelAnswer): StructuredExtraction => ({ output: answer.output, usage, trimmed, model: answer.model, provider: input.provider });

  try {
    const first = await counted(base);
    const problems = validator?.problems(first.output) ?? [];
    if (problems.length === 0) return done(first);

    const repaired = await counted({ ...base, repair: { previous: first, problems } });
    const remaining = validator?.problems(repaired.output) ?? [];
    if (remaining.length === 0) return done(repaired);
    throw new LlmError(`model output did not match the schema: ${remaining.slice(0, 3).join('; ')}`);
  } catch (err) {
    if (err instanceof LlmError) throw withoutKey(err, input.apiKey, usage);
    throw withoutKey(new LlmError('language-model call failed unexpectedly'), input.apiKey, usage);
  }
}
