import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LlmError } from './llm-error.js';

export type JsonSchema = Record<string, unknown>;

export interface OutputValidator {
  /** Problems with `value` in a few words each (at most ten), or an empty list when it is valid. */
  problems(value: unknown): string[];
}

// Formats (`date-time`, `email`…) are not checked: they are hints to the model, and a repair round
// spent on a date written slightly differently would cost more than it gives.
const OPTIONS = { allErrors: true, strict: false, validateFormats: false, logger: false } as const;

/**
 * One Ajv per schema, built for the draft the schema names (07 when it names none). Ajv caches every
 * schema it compiles for its lifetime, so a shared instance would grow with every caller's schema.
 */
function ajvFor(schema: JsonSchema): Ajv | Ajv2019 | Ajv2020 {
  const draft = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (draft.includes('2020-12')) return new Ajv2020(OPTIONS);
  if (draft.includes('2019-09')) return new Ajv2019(OPTIONS);
  return new Ajv(OPTIONS);
}

function describe(error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const extra = typeof error.params.additionalProperty === 'string' ? ` (${error.params.additionalProperty})` : '';
  return `${where} ${error.message ?? 'is invalid'}${extra}`;
}

/** Compiles the caller's schema up front, so a broken schema fails before any tokens are spent. */
export function compileOutputSchema(schema: JsonSchema): OutputValidator {
  if (schema.type !== undefined && schema.type !== 'object') throw new LlmError('the JSON schema must describe an object');
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch {
    throw new LlmError('the JSON schema given is not valid');
  }
  return {
    problems(value) {
      if (validate(value)) return [];
      return (validate.errors ?? []).slice(0, 10).map(describe);
    },
  };
}

/**
 * The schema as sent to a provider: always rooted at an object (Anthropic requires `type: object`
 * on a tool's input schema), without `$schema`, which some OpenAI-compatible servers reject.
 */
export function providerSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema) return { type: 'object', additionalProperties: true };
  const { $schema: _draft, ...rest } = schema;
  return { ...rest, type: 'object' };
}
