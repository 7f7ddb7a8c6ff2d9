import type { RedisClient as Redis } from '@gleaner/platform';

/**
 * Counters written on every request, as single scripts rather than MULTI: ioredis builds a
 * pipeline object for each MULTI and defines every script its client knows on it, and the
 * gateway's client also carries BullMQ's few dozen scripts (its producers add jobs on it), so one
 * MULTI cost ~120 µs of CPU there, a tenth of a submit's (bench/load.ts profile).
 */
const INCREMENT_WITH_EXPIRY_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return count
`;

interface CounterCommands {
  gleanerIncrementWithExpiry(key: string, ttlSeconds: number): Promise<number>;
}

function counters(redis: Redis): CounterCommands {
  if (!('gleanerIncrementWithExpiry' in redis)) {
    redis.defineCommand('gleanerIncrementWithExpiry', { lua: INCREMENT_WITH_EXPIRY_SCRIPT, numberOfKeys: 1 });
  }
  return redis as unknown as CounterCommands;
}

/** INCR, then (re)sets the key's expiry; the new count. */
export function incrementWithExpiry(redis: Redis, key: string, ttlSeconds: number): Promise<number> {
  return counters(redis).gleanerIncrementWithExpiry(key, ttlSeconds);
}
