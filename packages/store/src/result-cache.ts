import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

export const CACHE_LIFETIME_SECONDS = 15 * 24 * 3600;

/**
 * A cached scrape as it is answered: the original request's id and the answer body already
 * serialised. A hit sends the stored JSON as is: no parse and no re-serialisation of a body that
 * is often tens of kilobytes (bench/load.ts: the cached-scrape path is CPU-bound on exactly that).
 */
export interface CachedAnswer {
  requestId: string;
  /** The JSON body of the answer. */
  json: string;
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

  /** Stored as `<requestId>\n<json>`: the id is read without parsing the body. */
  async put(accountId: string, url: string, answer: CachedAnswer): Promise<void> {
    await this.redis.set(this.key(accountId, url), `${answer.requestId}\n${answer.json}`, 'EX', CACHE_LIFETIME_SECONDS);
  }

  /** The answer, or null. An entry in an older layout (a JSON object) counts as a miss. */
  async get(accountId: string, url: string): Promise<CachedAnswer | null> {
    const raw = await this.redis.get(this.key(accountId, url));
    const newline = raw?.indexOf('\n') ?? -1;
    if (!raw || newline <= 0 || raw.startsWith('{')) return null;
    return { requestId: raw.slice(0, newline), json: raw.slice(newline + 1) };
  }
}
