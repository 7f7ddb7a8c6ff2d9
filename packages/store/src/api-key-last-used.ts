import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { unixNow } from './time.js';

/** Keys' last use is kept to this precision: one write per key per this many seconds per process. */
export const LAST_USED_PRECISION_SECONDS = 60;
/** Past this many keys remembered, the memory of writes starts over (a few extra writes, no growth). */
const REMEMBERED_KEYS_MAX = 50_000;

/**
 * When each API key was last admitted, for the account's key list. Written at most once a minute
 * per key by each gateway process (not once per request: a busy key would add a write to every
 * request), so `lastUsedAt` may be up to a minute early; one hash per account, field = key id.
 */
export class ApiKeyLastUsed {
  private readonly keys: Keyspace;
  /** Key id → the Unix time this process last wrote for it. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
  }

  /** Notes a use; resolves once written, or at once when this process wrote it less than a minute ago. */
  async touch(accountId: string, keyId: string, now = unixNow()): Promise<void> {
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < LAST_USED_PRECISION_SECONDS) return;
    if (this.written.size >= REMEMBERED_KEYS_MAX) this.written.clear();
    this.written.set(keyId, now);
    try {
      await this.redis.hset(this.keys.apiKeysLastUsed(accountId), keyId, now);
    } catch (err) {
      this.written.delete(keyId); // try again on the next use
      throw err;
    }
  }
}
