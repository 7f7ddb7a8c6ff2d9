import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

/**
 * HTML a browser-worker rendered, on its way to the scraper-worker that extracts it. Kept out of
 * the render job's return value: BullMQ copies return values into the queue's event stream, and a
 * page may be 10 MB. Short-lived: the scraper takes it once (GETDEL), the ttl drops what no one took.
 */
export class RenderedPageStore {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlSeconds = 600,
  ) {
    this.keys = new Keyspace(prefix);
  }

  async put(requestId: string, html: string): Promise<void> {
    await this.redis.set(this.keys.renderedPage(requestId), html, 'EX', this.ttlSeconds);
  }

  /** The page, removed as it is read; null when it was taken already or expired. */
  async take(requestId: string): Promise<string | null> {
    return this.redis.getdel(this.keys.renderedPage(requestId));
  }
}
