import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { REQUEST_FAMILIES, type RequestRecord } from './request-records.js';

export class RequestsCursorError extends Error {}

export interface RecentRequestsPage {
  /** Newest first. */
  records: RequestRecord[];
  /** Pass as `after` for the next (older) page; absent on the last page. */
  cursor?: string;
}

/**
 * An account's recent requests, newest first, read through the index UsageCounters.countRequest
 * writes at submit. The index outlives some records (a scrape's ends 15 h after completion, its
 * entry stays up to 7 days): an entry whose record is gone is skipped and removed as it is met.
 */
export class AccountRequests {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
  }

  /**
   * Up to `limit` records older than the `after` cursor. The cursor is the last entry's score and
   * member: entries created in the same millisecond are told apart by member, so none is skipped.
   */
  async recent(accountId: string, { limit = 25, after }: { limit?: number; after?: string } = {}): Promise<RecentRequestsPage> {
    const index = this.keys.accountRequests(accountId);
    let from = after === undefined ? null : decodeCursor(after);
    if (after !== undefined && !from) throw new RequestsCursorError('not a cursor this listing gave');
    const records: RequestRecord[] = [];
    for (let round = 0; round < 8 && records.length < limit; round++) {
      const batch = limit - records.length + 16;
      const flat = await this.redis.zrevrangebyscore(index, from ? String(from.score) : '+inf', '-inf', 'WITHSCORES', 'LIMIT', 0, batch);
      const entries: Array<{ member: string; score: number }> = [];
      for (let i = 0; i < flat.length; i += 2) entries.push({ member: flat[i], score: Number(flat[i + 1]) });
      // Same score as the cursor: ordered by member, descending; those at or above it were seen.
      const fresh = entries.filter((e) => !from || e.score < from.score || e.member < from.member);
      if (fresh.length === 0) return { records };
      const raws = await this.redis.mget(fresh.map((e) => this.recordKey(e.member)));
      const gone: string[] = [];
      for (let i = 0; i < fresh.length; i++) {
        from = fresh[i];
        const raw = raws[i];
        if (raw === null) gone.push(fresh[i].member);
        else records.push(JSON.parse(raw) as RequestRecord);
        if (records.length === limit) break;
      }
      if (gone.length) await this.redis.zrem(index, ...gone);
      if (records.length === limit) return { records, cursor: encodeCursor(from!) };
      if (entries.length < batch) return { records };
    }
    return { records, ...(from ? { cursor: encodeCursor(from) } : {}) };
  }

  /** The account's record with this id, whatever its family; null when gone or someone else's. */
  async find(accountId: string, id: string): Promise<RequestRecord | null> {
    const raws = await this.redis.mget(REQUEST_FAMILIES.map((family) => this.keys.record(family, id)));
    for (const raw of raws) {
      const record = raw ? (JSON.parse(raw) as RequestRecord) : null;
      if (record && record.accountId === accountId) return record;
    }
    return null;
  }

  private recordKey(member: string): string {
    const split = member.indexOf(':');
    return this.keys.record(member.slice(0, split), member.slice(split + 1));
  }
}

function encodeCursor(entry: { member: string; score: number }): string {
  return Buffer.from(JSON.stringify([entry.score, entry.member])).toString('base64url');
}

function decodeCursor(cursor: string): { member: string; score: number } | null {
  try {
    const [score, member] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    return typeof score === 'number' && typeof member === 'string' ? { score, member } : null;
  } catch {
    return null;
  }
}
