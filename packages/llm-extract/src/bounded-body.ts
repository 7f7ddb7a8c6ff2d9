import { LlmError } from './llm-error.js';

/**
 * Largest answer body read from a provider. A full answer of DEFAULT_MAX_OUTPUT_TOKENS is about
 * 16 KB of JSON; the base URL is the tenant's, so a body that never ends must stop here instead
 * of growing the worker's heap until V8 aborts the process (issue 24: 4.3 GB, then a crash that
 * failed every job running beside it).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/** Error answers are read only this far: their text is never shown, only their status matters. */
export const ERROR_BODY_BYTES = 64 * 1024;

export function tooLargeReason(maxBytes: number): string {
  const size = maxBytes >= 1024 * 1024 ? `${Math.round((maxBytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(maxBytes / 1024)} KB`;
  return `provider answer larger than ${size}`;
}

/**
 * `body` passed through a byte counter: past `maxBytes` the stream errors with `overflow` (its
 * source is cancelled, which closes the connection), or, with `overflow` null, simply ends there
 * (an error answer cut short is still an error answer). `onOverflow` hears of it either way.
 */
export function boundedStream(body: ReadableStream<Uint8Array>, maxBytes: number, overflow: Error | null, onOverflow: () => void = () => undefined): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      if (received + value.byteLength <= maxBytes) {
        received += value.byteLength;
        return controller.enqueue(value);
      }
      onOverflow();
      reader.cancel().catch(() => undefined);
      if (overflow) return controller.error(overflow);
      controller.enqueue(value.subarray(0, maxBytes - received));
      received = maxBytes;
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A response's body as text, read up to `maxBytes`; a longer one fails the call (not retried). */
export async function readBoundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const tooLarge = () => new LlmError(tooLargeReason(maxBytes));
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
