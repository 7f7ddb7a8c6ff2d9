import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import Joi from 'joi';
import { createLogger } from '@gleaner/platform';
import { defineQueue, type QueueConnection } from '@gleaner/queues';
import { accountCapFrom, defaultAccountCap, OVER_CAP_WAIT, WorkerRegistry } from '../src/index.js';
import { deleteKeysWithPrefix, testConnection, testPrefix, testQueue, testRedis } from '../../../tests/support/redis.js';
import { waitFor } from '../../../tests/support/webhook-receiver.js';

/**
 * The per-account cap on real Redis and BullMQ, over two registries standing for two worker
 * processes: an account never runs more than its share at once across both, its other jobs wait
 * as delayed jobs (no slot held, no attempt spent), and another account's job starts at once.
 */
const prefix = testPrefix('account-cap');
const connection: QueueConnection = testConnection(prefix);
const logger = createLogger('account-cap-test', 'error');
const capQueue = defineQueue<{ accountId: string; n: number }, number>({
  name: 'cap-test',
  schema: Joi.object({ accountId: Joi.string().required(), n: Joi.number().required() }),
  jobOptions: { attempts: 1 },
});

const registries: WorkerRegistry[] = [];
let queue: Queue | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
});
afterAll(() => deleteKeysWithPrefix(prefix));

describe('accountCapFrom', () => {
  it('defaults to half of the concurrency (at least one); 0 turns the cap off', () => {
    expect([1, 2, 3, 8].map(defaultAccountCap)).toEqual([1, 1, 2, 4]);
    expect(accountCapFrom(undefined, 8, 'scraper')).toEqual({ max: 4, group: 'scraper' });
    expect(accountCapFrom(6, 8)).toEqual({ max: 6 });
    expect(accountCapFrom(0, 8)).toBeUndefined();
  });
});

describe('a per-account cap over two worker processes', () => {
  it('runs at most `max` jobs of one account at once across both; another account starts at once; nothing is charged', async () => {
    queue = testQueue(capQueue.name, prefix);
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const startedAt = new Map<number, number>();
    for (let i = 0; i < 2; i++) {
      const registry = new WorkerRegistry(connection, logger, { lockDuration: 2_000, stalledInterval: 1_000 });
      registry.register(
        capQueue,
        async ({ accountId, n }) => {
          startedAt.set(n, Date.now());
          running.set(accountId, (running.get(accountId) ?? 0) + 1);
          peak.set(accountId, Math.max(peak.get(accountId) ?? 0, running.get(accountId)!));
          await sleep(600);
          running.set(accountId, running.get(accountId)! - 1);
          return n;
        },
        { concurrency: 4, accountCap: { max: 2 } },
      );
      registries.push(registry);
    }
    await Promise.all(registries.map((r) => r.waitUntilReady()));
    const aJobs = await Promise.all(Array.from({ length: 8 }, (_, n) => queue!.add('job', { accountId: 'acct-a', n }, { jobId: `a-${n}` })));
    await waitFor(() => running.get('acct-a') ?? 0, (k) => k === 2, 10_000);
    const bAdded = Date.now();
    const bJob = await queue.add('job', { accountId: 'acct-b', n: 100 }, { jobId: 'b-0' });
    const all = [...aJobs, bJob];
    const states = await waitFor(() => Promise.all(all.map((j) => j.getState())), (s) => s.every((x) => x === 'completed' || x === 'failed'), 30_000);
    expect(states).toEqual(all.map(() => 'completed'));
    expect(peak.get('acct-a')).toBe(2);
    // B did not wait for A's queue (8 jobs of 600 ms, two at a time: 2.4 s).
    expect(startedAt.get(100)! - bAdded).toBeLessThan(1_500);
    const finished = await Promise.all(all.map((j) => queue!.getJob(String(j.id))));
    expect(finished.map((j) => j?.attemptsMade)).toEqual(all.map(() => 1));
    // A deferral is not a start: BullMQ counts every move to active in attemptsStarted, which
    // numbers webhook attempts (X-Webhook-Attempt); A's jobs were deferred and started once each.
    expect(finished.map((j) => j?.attemptsStarted)).toEqual(all.map(() => 1));
    // The places were given back.
    const { Redis } = await import('ioredis');
    const redis = testRedis();
    try {
      expect(await redis.zcard(`${prefix}:account-jobs:cap-test:acct-a`)).toBe(0);
    } finally {
      redis.disconnect();
    }
  }, 60_000);
});

describe('a job that stays over its account cap', () => {
  it('is offered again after 1 s, then 2, 4… (at most 8 s), each time without a start counted', async () => {
    expect(OVER_CAP_WAIT).toEqual({ firstMs: 1_000, maxMs: 8_000 });
    queue = testQueue(capQueue.name, prefix);
    const registry = new WorkerRegistry(connection, logger, { lockDuration: 10_000, stalledInterval: 5_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    registry.register(capQueue, async ({ n }) => (n === 0 ? held.then(() => n) : n), { concurrency: 2, accountCap: { max: 1 } });
    registries.push(registry);
    await registry.waitUntilReady();
    await queue.add('job', { accountId: 'acct-a', n: 0 }, { jobId: 'holder' });
    await waitFor(() => queue!.getActiveCount(), (k) => k === 1, 10_000);
    const waiting = await queue.add('job', { accountId: 'acct-a', n: 1 }, { jobId: 'waiting' });
    await sleep(7_000);
    const { Redis } = await import('ioredis');
    const redis = testRedis();
    try {
      const fields = await redis.hgetall(`${prefix}:${capQueue.name}:waiting`);
      // Waits of 1, 2 and 4 s (each at least half that) leave room for at most four offers in
      // 7 s; a fixed 1 s wait makes about seven.
      expect(Number(fields['gleaner-deferrals'])).toBeGreaterThanOrEqual(2);
      expect(Number(fields['gleaner-deferrals'])).toBeLessThanOrEqual(4);
      expect(Number(fields.ats ?? 0)).toBeLessThanOrEqual(1); // 1 only while being offered right now
    } finally {
      redis.disconnect();
    }
    release();
    expect(await waitFor(() => waiting.getState(), (s) => s === 'completed', 20_000)).toBe('completed');
    expect((await queue.getJob('waiting'))?.attemptsStarted).toBe(1);
  }, 40_000);
});
