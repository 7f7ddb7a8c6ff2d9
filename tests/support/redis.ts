import { createHook, type AsyncHook } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import type { QueueConnection } from '@gleaner/queues';
import { createRedis, redisTarget, waitForRedis, type RedisClient, type RedisTarget } from '@gleaner/platform';

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

/**
 * The suite's Redis as the services see it: one server (GLEANER_TEST_REDIS_URL), or under
 * GLEANER_TEST_REDIS_MODE=cluster or sentinel (suite-redis.mjs) a Cluster or a Sentinel group,
 * named by GLEANER_TEST_REDIS_CLUSTER_NODES or GLEANER_TEST_REDIS_SENTINELS and _SENTINEL_MASTER.
 */
export const TEST_REDIS_TARGET: RedisTarget = redisTarget({
  REDIS_URL: TEST_REDIS_URL,
  REDIS_CLUSTER_NODES: process.env.GLEANER_TEST_REDIS_CLUSTER_NODES,
  REDIS_SENTINELS: process.env.GLEANER_TEST_REDIS_SENTINELS,
  REDIS_SENTINEL_MASTER: process.env.GLEANER_TEST_REDIS_SENTINEL_MASTER,
  GLEANER_REDIS_PREFIX: 'unused',
});

/** The settings that point a service at the suite's Redis (serviceEnv). */
export function testRedisSettings(): Record<string, string> {
  const env: Record<string, string> = { REDIS_URL: TEST_REDIS_URL };
  if (process.env.GLEANER_TEST_REDIS_CLUSTER_NODES) env.REDIS_CLUSTER_NODES = process.env.GLEANER_TEST_REDIS_CLUSTER_NODES;
  if (process.env.GLEANER_TEST_REDIS_SENTINELS) {
    env.REDIS_SENTINELS = process.env.GLEANER_TEST_REDIS_SENTINELS;
    env.REDIS_SENTINEL_MASTER = process.env.GLEANER_TEST_REDIS_SENTINEL_MASTER ?? '';
  }
  return env;
}

/**
 * A client of the suite's Redis, built as the services build theirs (createRedis). Commands wait
 * while it connects (not the fail-fast producer role), as a plain `new Redis(url)` does.
 */
export function testRedis(target: RedisTarget = TEST_REDIS_TARGET): RedisClient {
  return createRedis(target, 'worker', 'test');
}

/**
 * A random prefix per test file. Under Cluster it is a hash tag (`{t-name-…}`), as keyPrefix makes
 * the services' own, so a test that reads or writes keys with it meets the services' keys.
 */
export function testPrefix(name: string): string {
  const prefix = `t-${name}-${randomBytes(4).toString('hex')}`;
  return TEST_REDIS_TARGET.kind === 'cluster' ? `{${prefix}}` : prefix;
}

/** The servers of a client (a scan must read each): every master of a Cluster, else the one client. */
export function serversOf(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

export async function deleteKeysWithPrefix(prefix: string, where: string | RedisTarget = TEST_REDIS_TARGET): Promise<void> {
  const redis = createRedis(typeof where === 'string' ? { kind: 'server', url: where } : where, 'worker', 'test-cleanup');
  try {
    await waitForRedis(redis);
    for (const node of serversOf(redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        cursor = next;
        // One key at a time under Cluster is not needed (one prefix, one slot), but a plain
        // server's keys of a test are many: one DEL per batch.
        if (keys.length) await node.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

/** Every value stored under `prefix`, whatever the key's type, as one string per key. */
export async function dumpValuesUnderPrefix(client: RedisClient, prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const redis of serversOf(client)) {
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
  }
  return out;
}

/** `dumpValuesUnderPrefix` on a connection of its own. */
export async function redisDump(keyPrefix: string): Promise<Map<string, string>> {
  const redis = testRedis();
  try {
    await waitForRedis(redis);
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

/** Queue connection of the services' kind on the suite's Redis (QueueProducer, WorkerRegistry). */
export function testConnection(prefix: string): QueueConnection {
  return { target: TEST_REDIS_TARGET, prefix };
}

/** A BullMQ Queue on the suite's Redis with a client of its own, disconnected when the queue closes. */
export function testQueue(name: string, prefix: string): Queue {
  const client = testRedis();
  const queue = new Queue(name, { connection: client, prefix });
  const close = queue.close.bind(queue);
  queue.close = async () => {
    await close();
    client.disconnect();
  };
  return queue;
}

/** KEYS over every server of a client: on a Cluster, a plain KEYS asks one node of several. */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  if (redis instanceof Cluster) await waitForRedis(redis);
  return (await Promise.all(serversOf(redis).map((server) => server.keys(pattern)))).flat();
}
