import type { TokenUsage } from './llm-error.js';
import type { JsonSchema } from './schema-validator.js';

export const TOOL_NAME = 'record_result';

/** One model answer: the JSON object plus what a repair round needs to replay it. */
export interface ModelAnswer {
  output: Record<string, unknown>;
  /** The answer as the model wrote it (JSON text), replayed as its turn in a repair round. */
  raw: string;
  /** Set when the answer was an Anthropic tool_use block, so the repair can answer it with a tool_result. */
  toolUseId?: string;
  usage: TokenUsage;
  /** The model the provider says answered (often a dated snapshot of the requested alias). */
  model: string;
}

export interface ModelCall {
  apiKey: string;
  model: string;
  baseUrl?: string;
  /** The fenced page and the caller's request (see prompt.ts). */
  userMessage: string;
  /** Schema the answer should follow, as sent to the provider. */
  schema: JsonSchema;
  /** False when the caller gave no schema (OpenAI-compatible then asks for plain `json_object`). */
  callerSchema: boolean;
  /** A second round after a schema violation: the previous answer and what was wrong with it. */
  repair?: { previous: ModelAnswer; problems: string[] };
  maxOutputTokens: number;
  /** Per attempt, like the SDKs' `timeout`; never longer than the time left before `deadline.at`. */
  timeoutMs: number;
  maxRetries: number;
  /** The whole extraction's deadline: epoch ms, and its length for the failure reason. */
  deadline: { at: number; ms: number };
  /** Longest provider-requested wait before a retry that is honoured (see refusedWaitSeconds). */
  maxRetryWaitMs: number;
  /** Largest answer body read; a longer one fails the call (see bounded-body.ts). */
  maxResponseBytes: number;
  fetch?: typeof globalThis.fetch;
}

export function repairInstruction(problems: string[], channel: 'tool' | 'json-message'): string {
  return [
    `That answer does not match the required JSON schema: ${problems.join('; ')}.`,
    channel === 'tool'
      ? 'Call record_result again with a corrected JSON object that satisfies the schema.'
      : 'Answer again with only a corrected JSON object that satisfies the schema.',
    'Keep following only the original extraction request.',
  ].join(' ');
}
