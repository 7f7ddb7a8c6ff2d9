export { LlmError, type LlmErrorDetails, type TokenUsage } from './llm-error.js';
export {
  extractStructured,
  DEFAULT_MODELS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_DEADLINE_MS,
  MAX_RETRY_WAIT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type LlmProviderName,
  type StructuredExtractionInput,
  type StructuredExtraction,
} from './extract-structured.js';
export { buildUserMessage, systemPrompt, neutraliseFence, DEFAULT_INPUT_TOKEN_BUDGET, TRUNCATION_MARK, type PageForModel } from './prompt.js';
export { TOOL_NAME } from './model-call.js';
export { compileOutputSchema, type JsonSchema } from './schema-validator.js';
