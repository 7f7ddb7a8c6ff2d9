import type { RedisClient as Redis } from '@gleaner/platform';

/**
 * KEYS[1] a hash; ARGV[1] the most fields it may hold, ARGV[2] field, ARGV[3] value. Counting and
 * writing in one script: HLEN then HSET from the client let entries made at once (on any number
 * of gateways) all pass the count.
 */
const HSET_UNDER_CAP_SCRIPT = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
`;

interface CappedHashCommands {
  gleanerHsetUnderCap(key: string, cap: number, field: string, value: string): Promise<number>;
}

/** Adds `field` to the hash unless it already holds `cap` fields; whether it was added. */
export async function hsetUnderCap(redis: Redis, key: string, cap: number, field: string, value: string): Promise<boolean> {
  if (!('gleanerHsetUnderCap' in redis)) redis.defineCommand('gleanerHsetUnderCap', { lua: HSET_UNDER_CAP_SCRIPT, numberOfKeys: 1 });
  return (await (redis as unknown as CappedHashCommands).gleanerHsetUnderCap(key, cap, field, value)) === 1;
}
