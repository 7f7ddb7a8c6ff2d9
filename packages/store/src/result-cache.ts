import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Keyspace } from './keyspace.js';

export const CACHE_LIFETIME_SECONDS = 15 * 24 * 3600;

export interface CachedScrape<Result = Record<string, unknown>> {
  requestId: string;
  url: string;
  timestamp: number;
  result: Result;
}

/** Cache identity of a URL: scheme and host lowercased by WHATWG parsing, fragment dropped. */
export function normalizeUrlForCache(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/** Completed scrape results per account and normalized URL, kept 15 days; never shared across accounts. */
export class ResultCache {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
  }

  private key(accountId: string, url: string): string {
    return this.keys.cache(accountId, createHash('sha256').update(normalizeUrlForCache(url)).digest('hex'));
  }

  async put<R>(accountId: string, entry: CachedScrape<R>): Promise<void> {
    await this.redis.set(this.key(accountId, entry.url), JSON.stringify(entry), 'EX', CACHE_LIFETIME_SECONDS);
  }

  async get<R = Record<string, unknown>>(accountId: string, url: string): Promise<CachedScrape<R> | null> {
    const raw = await this.redis.get(this.key(accountId, url));
    return raw ? (JSON.parse(raw) as CachedScrape<R>) : null;
  }
}
