import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Joi from 'joi';
import { createLogger, createRedis, deploymentRedis, newRequestId, waitForRedis, type DeploymentRedis, type RedisClient } from '@gleaner/platform';
import { createQueueWorker, defineQueue, QueueProducer } from '@gleaner/queues';
import { CrawlState, createStores, McpSessionDirectory, RecordEndings, ReplicaAcks, type Stores } from '@gleaner/store';
import { startRedisCluster, type TestRedisCluster } from './support/redis-ha.mjs';

/**
 * Slot safety under Redis Cluster, in `pnpm test` (the whole Redis-touching suite runs against a
 * Cluster and a Sentinel group by hand: pnpm test:redis-ha). On a Cluster of 3 masters, with the
 * deployment's prefix as the services build it (deploymentRedis: `{name}`), every store script and
 * transaction that touches several keys runs (a cross-slot one would fail with CROSSSLOT), as do a
 * BullMQ producer, worker and event reader, record endings over pub/sub, and the replica wait.
 */
let cluster: TestRedisCluster;
let deployment: DeploymentRedis;
let redis: RedisClient;
let stores: Stores;

beforeAll(async () => {
  cluster = await startRedisCluster({ nodeTimeoutMs: 15_000 });
  deployment = deploymentRedis({ REDIS_URL: 'redis://127.0.0.1:1/0', REDIS_CLUSTER_NODES: cluster.nodesSetting, GLEANER_REDIS_PREFIX: 'slots' });
  redis = createRedis(deployment.target, 'worker', 'cluster-store-test');
  await waitForRedis(redis);
  stores = createStores(redis, deployment.prefix, 'cluster-secret-0123456789abcdef');
}, 90_000);

afterAll(async () => {
  redis?.disconnect();
  await cluster?.stop();
});

describe('the store, the queues and the worker runtime on a Redis Cluster', () => {
  it('keeps every key of the deployment in the slot of its hash-tagged prefix', () => {
    expect(deployment.prefix).toBe('{slots}');
  });

  it('runs the multi-key scripts and transactions: accounts, keys, the API key gate and rate limit, idempotency, usage, records', async () => {
    const account = await stores.accounts.createAccount('cluster-account');
    const { apiKey } = await stores.accounts.createApiKey(account.id);
    expect((await stores.apiKeyGate.admit(apiKey, 'scrape', 60)).kind).toBe('admitted');
    expect((await stores.rateLimiter.consume(`cluster:${account.id}`, 5)).allowed).toBe(true);
    const id = newRequestId();
    const claimed = await stores.idempotencyKeys.createClaimed({ id, family: 'scrape', accountId: account.id, input: { url: 'https://example.org/' } }, 'cluster-key', 'fingerprint');
    expect(claimed.created).toBe(true);
    await stores.usage.countRequest(account.id, 'scrape', 1, id);
    await stores.records.markProcessing('scrape', id);
    expect((await stores.records.complete('scrape', id, { text: 'done' }))?.status).toBe('completed');
    expect((await stores.accountRequests.recent(account.id, { limit: 10 })).records.map((r) => r.id)).toEqual([id]);
  });

  it("announces a record's end over pub/sub", async () => {
    const endings = new RecordEndings(createRedis(deployment.target, 'worker', 'endings'), stores.records, deployment.prefix);
    await endings.start();
    try {
      const id = newRequestId();
      await stores.records.create({ id, family: 'parse', accountId: 'acc', input: {} });
      const waiting = endings.wait('parse', id, 10_000);
      await stores.records.complete('parse', id, { data: 'parsed' });
      expect(await waiting.ended).toMatchObject({ id, status: 'completed' });
    } finally {
      await endings.close();
    }
  });

  it("runs a crawl's state scripts, the MCP session directory and the replica wait", async () => {
    const crawl = new CrawlState(redis, deployment.prefix);
    expect(await crawl.create('c1', { limit: 10, maxUrls: 100, maxBytes: 1_000_000 }, 600)).toBe(true);
    expect(await crawl.discover('c1', [{ key: 'k1', url: 'https://example.org/a', depth: 0 }, { key: 'k2', url: 'https://example.org/b', depth: 1 }], 600)).toBe(2);
    expect((await crawl.claim('c1', 5, 600)).pages).toHaveLength(2);
    const directory = new McpSessionDirectory(redis, deployment.prefix, 60_000);
    await directory.opened('s1', { ownerId: 'o', accountId: 'a', initialize: {} });
    expect(await directory.touch('s1')).toMatchObject({ ownerId: 'o' });
    // Each master has a replica: the WAIT goes to the master of the deployment's slot and one acknowledges.
    const ackClient = createRedis(deployment.target, 'producer', 'acks');
    const acks = new ReplicaAcks(ackClient, deployment.prefix, 5_000, createLogger('acks', 'error'));
    try {
      // A fail-fast client refuses commands until it has connected (the gateway's answer 503 meanwhile).
      await waitForRedis(ackClient);
      expect(await Promise.all([acks.wait(), acks.wait(), acks.wait()])).toEqual([1, 1, 1]);
    } finally {
      acks.close();
    }
  });

  it('adds, runs and hears of a BullMQ job', async () => {
    const queue = defineQueue<{ n: number }, number>({ name: 'cluster-probe', schema: Joi.object({ n: Joi.number().required() }), jobOptions: { attempts: 1 } });
    const producer = new QueueProducer(queue, deployment);
    const worker = createQueueWorker(queue, deployment, async ({ n }) => n + 1, { concurrency: 2, logger: createLogger('cluster-test', 'error') });
    try {
      await Promise.all([producer.ready(), worker.waitUntilReady()]);
      const job = await producer.add({ n: 41 }, 'cluster-job');
      expect(await producer.waitForFinish(job, 10_000)).toEqual({ outcome: 'completed', value: 42 });
    } finally {
      await worker.close();
      await producer.close();
    }
  });
});
