import { DocumentError } from '../src/errors.js';

/** The DocumentError a parse rejects with (any other outcome fails the test). */
export async function failure(promise: Promise<unknown>): Promise<DocumentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DocumentError) return error;
    throw error;
  }
  throw new Error('expected a DocumentError');
}
