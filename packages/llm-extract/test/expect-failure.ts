import { expect } from '@jest/globals';
import { LlmError } from '../src/index.js';

/** The LlmError a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function expectLlmError(promise: Promise<unknown>): Promise<LlmError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected an LlmError, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(LlmError);
  return outcome.error as LlmError;
}

/** Everything about a failure or result that could reach a user or a log. */
export function visibleText(value: unknown): string {
  if (value instanceof Error) return [value.message, value.stack ?? '', String(value), JSON.stringify(value)].join('\n');
  return JSON.stringify(value);
}
