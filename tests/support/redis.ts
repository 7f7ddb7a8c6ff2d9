import { createHook, type AsyncHook } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Tests use the Redis jest's globalSetup gives them (tests/support/suite-redis-setup.ts: a
 * redis-server of the suite's own, or the one GLEANER_TEST_REDIS_URL names; never database 13,
 * which outside acceptance checks flush), a random key prefix per test file, and delete
 * everything under that prefix when done. There is no default: a test never falls back to
 * whatever answers on 6379.
 */
export const TEST_REDIS_URL = process.env.GLEANER_TEST_REDIS_URL ?? noTestRedis();

function noTestRedis(): never {
  throw new Error('GLEANER_TEST_REDIS_URL is not set: run tests through jest (pnpm test, pnpm test:file <path>), whose globalSetup starts the suite\'s Redis');
}

export function testPrefix(name: string): string {
  return `t-${name}-${randomBytes(4).toString('hex')}`;
}

export async function deleteKeysWithPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Every value stored under `prefix`, whatever the key's type, as one string per key. */
export async function dumpValuesUnderPrefix(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === 'string') value = await redis.getBuffer(key).then((b) => b?.toString('latin1'));
      else if (type === 'hash') value = await redis.hgetall(key);
      else if (type === 'list') value = await redis.lrange(key, 0, -1);
      else if (type === 'set') value = await redis.smembers(key);
      else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
      else if (type === 'stream') value = await redis.xrange(key, '-', '+');
      else value = `<${type}>`;
      out.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } while (cursor !== '0');
  return out;
}

/** `dumpValuesUnderPrefix` on a connection of its own. */
export async function redisDump(keyPrefix: string, url = TEST_REDIS_URL): Promise<Map<string, string>> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await dumpValuesUnderPrefix(redis, keyPrefix);
  } finally {
    redis.disconnect();
  }
}

/**
 * Open handle left by ioredis's reply parser: after reading a value larger than its buffer pool
 * (a parse record of a few MB), redis-parser starts a module-level 50 ms interval that shrinks the
 * pool by a tenth at a time and keeps the process alive until it is small again, a few seconds
 * after the last big read. It cannot be closed from outside, so a test that reads such records
 * watches for it (from the start, `watchReplyBufferShrinking()`) and waits for it in afterAll
 * (`replyBufferShrunk()`); otherwise jest reports that it "did not exit".
 */
const shrinking = new Set<number>();
let watching: AsyncHook | null = null;

export function watchReplyBufferShrinking(): void {
  watching ??= createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout' && (resource as { _onTimeout?: { name?: string } })._onTimeout?.name === 'decreaseBufferPool') shrinking.add(id);
    },
    destroy(id) {
      shrinking.delete(id);
    },
  }).enable();
}

export async function replyBufferShrunk(timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; shrinking.size > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
  watching?.disable();
  watching = null;
}
