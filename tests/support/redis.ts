import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Tests use their own Redis database (11 unless GLEANER_TEST_REDIS_URL says otherwise; never 13,
 * which outside acceptance checks flush) and a random key prefix per test file, and delete
 * everything under that prefix when done.
 */
export const TEST_REDIS_URL = process.env.GLEANER_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/11';

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
