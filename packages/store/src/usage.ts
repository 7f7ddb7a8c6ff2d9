import type { RedisClient as Redis } from '@gleaner/platform';
import { requestIdTime } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { RECORD_LIFETIME_SECONDS, REQUEST_FAMILIES, type Family } from './request-records.js';

export interface AccountUsage {
  credits_used: number;
  requests: Record<Family, number>;
  llm_tokens: { input: number; output: number };
}

/** One UTC day of an account's usage. */
export interface DailyUsage extends AccountUsage {
  /** YYYY-MM-DD, UTC. */
  date: string;
}

/** Daily counters are kept this long; the console shows the last 30 days. */
export const USAGE_DAYS_KEPT = 35;

/** The account's request index keeps an entry as long as the longest-lived record can exist. */
const REQUEST_INDEX_SECONDS = Math.max(...Object.values(RECORD_LIFETIME_SECONDS).map((l) => l.fromCreation));

/**
 * One script, one round trip for everything a request or a model run adds to an account: the
 * running totals, today's counters, and (requests only) the entry in the account's index of
 * recent requests, which drops entries older than any record lives. A request already in the
 * index is not counted again: ioredis sends the script a second time when a reconnect lost its
 * reply (a failover), and v1 requests cost credits.
 * KEYS[1] totals hash, KEYS[2] today's hash, KEYS[3] request index.
 * ARGV[1] today's ttl, ARGV[2] index member or '', ARGV[3] its score (ms), ARGV[4] oldest score
 * kept, ARGV[5] index ttl, then field, increment, field, increment, ...
 */
const ACCOUNT_USAGE_SCRIPT = `
if ARGV[2] ~= '' then
  local added = redis.call('ZADD', KEYS[3], 'NX', ARGV[3], ARGV[2])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[5])
  if added == 0 then return 0 end
end
for i = 6, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 1
`;
type AccountUsageCommand = (totals: string, day: string, index: string, ...args: Array<string | number>) => Promise<number>;

/** The member of the account's request index that names a record. */
export function requestIndexMember(family: Family, id: string): string {
  return `${family}:${id}`;
}

export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * Per-account counters: credits (v1 charges one per submit), requests by family, LLM tokens, as
 * running totals and per UTC day; and the index of the account's recent requests (AccountRequests reads it).
 */
export class UsageCounters {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
    // Counters are scripts, not MULTI: see counter-scripts.ts for why.
    if (!('gleanerAccountUsage' in redis)) redis.defineCommand('gleanerAccountUsage', { lua: ACCOUNT_USAGE_SCRIPT, numberOfKeys: 3 });
  }

  /** An accepted request: counted, and listed in the account's recent requests under `requestId`. */
  countRequest(accountId: string, family: Family, credits = 0, requestId?: string): Promise<void> {
    const fields = { [`requests:${family}`]: 1, ...(credits ? { credits } : {}) };
    return this.add(accountId, fields, requestId ? { member: requestIndexMember(family, requestId), createdMs: requestIdTime(requestId) ?? Date.now() } : undefined);
  }

  countTokens(accountId: string, input: number, output: number): Promise<void> {
    return this.add(accountId, { llm_input_tokens: input, llm_output_tokens: output });
  }

  private async add(accountId: string, fields: Record<string, number>, indexed?: { member: string; createdMs: number }): Promise<void> {
    const now = Date.now();
    const command = (this.redis as unknown as { gleanerAccountUsage: AccountUsageCommand }).gleanerAccountUsage;
    await command.call(
      this.redis,
      this.keys.usage(accountId),
      this.keys.usageDay(accountId, utcDate(now)),
      this.keys.accountRequests(accountId),
      USAGE_DAYS_KEPT * 86_400,
      indexed?.member ?? '',
      indexed?.createdMs ?? 0,
      now - REQUEST_INDEX_SECONDS * 1000,
      REQUEST_INDEX_SECONDS,
      ...Object.entries(fields).flat(),
    );
  }

  async read(accountId: string): Promise<AccountUsage> {
    return usageOf(await this.redis.hgetall(this.keys.usage(accountId)));
  }

  /** The last `days` UTC days, oldest first, today last; days without use are zeros. */
  async readDaily(accountId: string, days: number, now = Date.now()): Promise<DailyUsage[]> {
    const dates = Array.from({ length: days }, (_, i) => utcDate(now - (days - 1 - i) * 86_400_000));
    const pipeline = this.redis.pipeline();
    for (const date of dates) pipeline.hgetall(this.keys.usageDay(accountId, date));
    const replies = (await pipeline.exec()) ?? [];
    return dates.map((date, i) => {
      const [err, hash] = replies[i] ?? [null, {}];
      if (err) throw err;
      return { date, ...usageOf(hash as Record<string, string>) };
    });
  }
}

function usageOf(h: Record<string, string>): AccountUsage {
  const n = (k: string) => Number(h[k] ?? 0);
  return {
    credits_used: n('credits'),
    requests: Object.fromEntries(REQUEST_FAMILIES.map((f) => [f, n(`requests:${f}`)])) as Record<Family, number>,
    llm_tokens: { input: n('llm_input_tokens'), output: n('llm_output_tokens') },
  };
}
