import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

export interface BudgetGrant {
  granted: boolean;
  /** The window the units were taken from (to give unused ones back). */
  window: number;
  /** Units left in the window after this take (or before it, when refused). */
  remaining: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/**
 * KEYS[1] window counter; ARGV[1] units, ARGV[2] limit, ARGV[3] ttl seconds.
 * All or nothing: a take that would pass the limit is undone. Returns {granted, count}.
 */
const TAKE_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if count > tonumber(ARGV[2]) then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  return {0, count - tonumber(ARGV[1])}
end
return {1, count}
`;
/** KEYS[1] window counter; ARGV[1] units. Only into a window that still exists. */
const GIVE_BACK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECRBY', KEYS[1], ARGV[1]) end
return 1
`;

type TakeCommand = (key: string, units: number, limit: number, ttl: number) => Promise<[number, number]>;
type GiveBackCommand = (key: string, units: number) => Promise<number>;

/**
 * Units per subject per fixed window (aligned to the epoch), counted in Redis so every replica
 * shares one budget. Unlike RateLimiter it takes several units at once, all or nothing, and gives
 * back what a caller reserved but did not use: the bot connector reserves a call's expected
 * platform requests up front and returns the rest.
 */
export class WindowBudget {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly windowSeconds: number,
  ) {
    this.keys = new Keyspace(prefix);
    if (!('gleanerBudgetTake' in redis)) {
      redis.defineCommand('gleanerBudgetTake', { lua: TAKE_SCRIPT, numberOfKeys: 1 });
      redis.defineCommand('gleanerBudgetGiveBack', { lua: GIVE_BACK_SCRIPT, numberOfKeys: 1 });
    }
  }

  async take(subject: string, limit: number, units: number): Promise<BudgetGrant> {
    const nowMs = Date.now();
    const window = Math.floor(nowMs / 1000 / this.windowSeconds);
    const take = (this.redis as unknown as { gleanerBudgetTake: TakeCommand }).gleanerBudgetTake;
    const [granted, count] = await take.call(this.redis, this.keys.rateWindow(subject, window), units, limit, this.windowSeconds * 2);
    return { granted: granted === 1, window, remaining: Math.max(0, limit - count), resetMs: Math.max(1, (window + 1) * this.windowSeconds * 1000 - nowMs) };
  }

  async giveBack(subject: string, window: number, units: number): Promise<void> {
    if (units <= 0) return;
    const giveBack = (this.redis as unknown as { gleanerBudgetGiveBack: GiveBackCommand }).gleanerBudgetGiveBack;
    await giveBack.call(this.redis, this.keys.rateWindow(subject, window), units);
  }
}
