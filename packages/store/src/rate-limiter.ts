import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Seconds until the next request would pass when refused (the Retry-After); when allowed,
   * seconds until the oldest counted request leaves the window and gives its place back.
   */
  resetSeconds: number;
}

/**
 * A sliding log: one sorted set per subject holding the time (Redis's clock, ms) of every request
 * it let through in the last window. At most `limit` pass in ANY window-long span, whatever its
 * start: the fixed minute windows this replaces let 2x the limit through across a minute boundary
 * (issue 24: 120 in 2.9 s for a 60/min key). GCRA was not taken: with a burst of the full limit it
 * lets one more through every limit-th of a window after the burst, over the limit in that span.
 * Refused requests are not logged, so a client that retries at Retry-After gets in. Redis's TIME
 * is the one clock every gateway replica shares; a lowered limit applies at once (the log is
 * longer than it until entries age out). Memory: at most `limit` members per subject, for one window.
 *
 * Lua, to be inlined in a script: slidingLogAdmit(key, limit, windowMs) -> {allowed 0|1, count, resetMs}.
 */
export const SLIDING_LOG_LUA = `
local function slidingLogAdmit(log, limit, windowMs)
  local time = redis.call('TIME')
  local nowMs = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', nowMs - windowMs)
  local count = redis.call('ZCARD', log)
  local allowed = 0
  if count < limit then
    -- Unique within one Redis: a later request sees a later time or a longer log.
    redis.call('ZADD', log, nowMs, time[1] .. '.' .. time[2] .. '.' .. count)
    count = count + 1
    allowed = 1
  end
  redis.call('PEXPIRE', log, windowMs)
  -- A place frees when the entry count - limit (0-based; the oldest when under the limit) ages out.
  local freeing = math.max(0, count - limit)
  local entry = redis.call('ZRANGE', log, freeing, freeing, 'WITHSCORES')
  local resetMs = windowMs
  if entry[2] then resetMs = tonumber(entry[2]) + windowMs - nowMs end
  return {allowed, count, resetMs}
end
`;

/** The decision from the script's count and resetMs. */
export function rateDecision(allowed: boolean, count: number, limit: number, resetMs: number): RateDecision {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}

const CONSUME_SCRIPT = `${SLIDING_LOG_LUA}
return slidingLogAdmit(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]))
`;

type ConsumeCommand = (key: string, limit: number, windowMs: number) => Promise<[number, number, number]>;

/**
 * The shared rate limit per subject (bearer token hash), in Redis so every gateway replica
 * counts against one log. API keys are limited by ApiKeyGate with the same log.
 */
export class RateLimiter {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly windowSeconds = 60,
  ) {
    this.keys = new Keyspace(prefix);
    if (!('gleanerRateConsume' in redis)) redis.defineCommand('gleanerRateConsume', { lua: CONSUME_SCRIPT, numberOfKeys: 1 });
  }

  async consume(subject: string, limit: number): Promise<RateDecision> {
    const consume = (this.redis as unknown as { gleanerRateConsume: ConsumeCommand }).gleanerRateConsume;
    const [allowed, count, resetMs] = await consume.call(this.redis, this.keys.rateLog(subject), limit, this.windowSeconds * 1000);
    return rateDecision(allowed === 1, count, limit, resetMs);
  }
}
