import type { Redis } from 'ioredis';
import { incrementWithExpiry } from './counter-scripts.js';
import { Keyspace } from './keyspace.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * Fixed one-minute windows counted with INCR in Redis, so every gateway replica shares one count
 * per subject (API key or bearer token hash) and the limit holds exactly across replicas.
 */
export class RateLimiter {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly windowSeconds = 60,
  ) {
    this.keys = new Keyspace(prefix);
  }

  async consume(subject: string, limit: number): Promise<RateDecision> {
    const nowMs = Date.now();
    const window = Math.floor(nowMs / 1000 / this.windowSeconds);
    const key = this.keys.rateWindow(subject, window);
    const count = await incrementWithExpiry(this.redis, key, this.windowSeconds * 2);
    const resetSeconds = Math.max(1, Math.ceil((window + 1) * this.windowSeconds - nowMs / 1000));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  }
}
