import type { BotPlatformClient, UserFieldValue } from './bot-platform-client.js';
import { BotPlatformError } from './bot-platform-error.js';
import type { FieldUpdateDetail } from './bot-webhook-types.js';

const reasonOf = (err: unknown): string => (err instanceof BotPlatformError ? err.message : 'unexpected error');

/**
 * Sets the fields in batches; a failed batch is retried field by field so each field gets its own
 * verdict (one unknown name must not sink the other nineteen). Setting a field is idempotent, so
 * repeating a batch's fields is safe. Once the platform has let a call time out, no more field
 * calls are made: each would wait the full timeout again while the caller waits.
 * Throws the BotPlatformError when the platform refuses the token.
 */
export async function updateUserFields(client: BotPlatformClient, userNs: string, fields: UserFieldValue[]): Promise<FieldUpdateDetail[]> {
  const details: FieldUpdateDetail[] = [];
  let stalled: BotPlatformError | undefined;
  for (const batch of await client.setUserFieldsByName(userNs, fields)) {
    if (!batch.error) {
      for (const f of batch.fields) details.push({ field: f.name, status: 'updated' });
      continue;
    }
    if (batch.error.kind === 'timeout') stalled ??= batch.error;
    for (const f of batch.fields) {
      if (stalled) {
        details.push({ field: f.name, status: `failed: ${stalled.message}` });
        continue;
      }
      try {
        await client.setUserFieldByName(userNs, f.name, f.value);
        details.push({ field: f.name, status: 'updated' });
      } catch (err) {
        if (err instanceof BotPlatformError && err.kind === 'unauthorized') throw err;
        if (err instanceof BotPlatformError && err.kind === 'timeout') stalled = err;
        details.push({ field: f.name, status: `failed: ${reasonOf(err)}` });
      }
    }
  }
  return details;
}
