import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Job } from 'bullmq';
import type { RedisClient as Redis } from '@gleaner/platform';
import { createLogger, newRequestId } from '@gleaner/platform';
import type { QueueProducer, WebhookJob } from '@gleaner/queues';
import { createStores, type Stores } from '@gleaner/store';
import { jobLockHolder, JobFailure, PROCESSING_MARK_DELAY_MS, runRecordedJob, type RecordedJobContext } from '../src/index.js';
import { deleteKeysWithPrefix, testPrefix, testRedis } from '../../../tests/support/redis.js';

const prefix = testPrefix('recorded-job');
let redis: Redis;
let stores: Stores;

/** A webhook producer that refuses the first `failures` adds, as one does while Redis is away. */
function flakyWebhooks(failures: number) {
  const added: WebhookJob[] = [];
  const producer = {
    add: async (payload: WebhookJob) => {
      if (failures-- > 0) throw new Error('Connection is closed.');
      added.push(payload);
    },
  } as unknown as QueueProducer<WebhookJob, unknown>;
  return { producer, added };
}

const job = (id: string, attemptsMade: number, attempts = 3, stalledCounter = 0) => ({ id, attemptsMade, stalledCounter, opts: { attempts } }) as unknown as Job;

function context(webhooks: QueueProducer<WebhookJob, unknown>): RecordedJobContext {
  return {
    records: stores.records,
    subscriptions: stores.subscriptions,
    webhooks,
    logger: createLogger('recorded-job-test', 'error'),
    includeTraces: false,
    unexpectedError: (err) => ({ code: 'E008', message: err.message }),
  };
}

async function newRequest(): Promise<string> {
  const id = newRequestId();
  await stores.records.create({ id, family: 'scrape', accountId: 'acct-1', input: { url: 'https://example.org/' }, webhook: { url: 'https://hooks.example.org/x', status: 'pending', attempts: 0 } });
  return id;
}

beforeAll(() => {
  redis = testRedis();
  stores = createStores(redis, prefix, 'test-secret-0123456789abcdef');
});

afterAll(async () => {
  await deleteKeysWithPrefix(prefix);
  redis.disconnect();
});

describe('runRecordedJob', () => {
  it('records no failure of a run whose job another worker took over (its lock lapsed while it was cut off)', async () => {
    const id = await newRequest();
    const { producer } = flakyWebhooks(0);
    const lockKey = `${prefix}:scrape:${id}:lock`;
    const held = { ...job(id, 0, 1), token: 'token-of-this-run', queueQualifiedName: `${prefix}:scrape` } as unknown as Job;
    const ctx = { ...context(producer), holdsJob: jobLockHolder(redis) };
    const unreachable = async () => {
      throw new JobFailure('E008', 'target did not answer within 30 s', false);
    };
    // Another worker holds the job now: the cut-off run's failure is not the request's outcome.
    await redis.set(lockKey, 'token-of-the-other-run');
    await expect(runRecordedJob('scrape', held, id, ctx, unreachable)).rejects.toThrow('target did not answer');
    expect((await stores.records.get('scrape', id))?.status).not.toBe('failed');
    // The run that holds the job records its outcome as ever.
    await redis.set(lockKey, 'token-of-this-run');
    await expect(runRecordedJob('scrape', held, id, ctx, unreachable)).rejects.toThrow('E008: target did not answer');
    expect((await stores.records.get('scrape', id))?.status).toBe('failed');
  });

  it('keeps a completed result when queueing its webhook fails, and finishes the webhook on the retry without working again', async () => {
    const id = await newRequest();
    const { producer, added } = flakyWebhooks(1);
    let works = 0;
    const work = async () => ({ result: { text: `run ${++works}` } });

    // On the last attempt too: the storage error goes to BullMQ, the result is not turned into a failure.
    await expect(runRecordedJob('scrape', job(id, 2), id, context(producer), work)).rejects.toThrow('Connection is closed.');
    expect(await stores.records.get('scrape', id)).toMatchObject({ status: 'completed', result: { text: 'run 1' } });

    // A run after that only finishes what was cut short: the result stays, the webhook is queued once.
    await expect(runRecordedJob('scrape', job(id, 2), id, context(producer), work)).resolves.toEqual({ status: 'completed' });
    expect(works).toBe(1);
    expect(await stores.records.get('scrape', id)).toMatchObject({ status: 'completed', result: { text: 'run 1' } });
    expect(added.map((w) => w.deliveryId)).toEqual([`wh-${id}`]);
  });

  it('keeps the outcome another run of the job recorded while this one worked (overlapping runs after a Redis outage)', async () => {
    const { producer, added } = flakyWebhooks(0);
    // The other run recorded its result; this one's fetch then failed for good: the result stays.
    const fetched = await newRequest();
    const failing = async (): Promise<{ result: object }> => {
      await stores.records.complete('scrape', fetched, { text: 'first run' });
      throw new Error('target answered HTTP 404');
    };
    await expect(runRecordedJob('scrape', job(fetched, 2), fetched, context(producer), failing)).resolves.toEqual({ status: 'completed' });
    expect(await stores.records.get('scrape', fetched)).toMatchObject({ status: 'completed', result: { text: 'first run' } });
    expect(added.map((w) => w.deliveryId)).toEqual([`wh-${fetched}`]);

    // The other way round: a failure recorded first stays, and this run's result is not written.
    const refused = await newRequest();
    const succeeding = async () => {
      await stores.records.fail('scrape', refused, { code: 'E008', message: 'target answered HTTP 404' });
      return { result: { text: 'second run' } };
    };
    await expect(runRecordedJob('scrape', job(refused, 0), refused, context(producer), succeeding)).rejects.toThrow('E008: target answered HTTP 404');
    expect(await stores.records.get('scrape', refused)).toMatchObject({ status: 'failed', error: { code: 'E008' } });
    expect((await stores.records.get('scrape', refused))?.result).toBeUndefined();
  });

  it('records a failure only when no retry is left', async () => {
    const id = await newRequest();
    const { producer, added } = flakyWebhooks(0);
    const work = async (): Promise<{ result: object }> => {
      throw new Error('target reset the connection');
    };
    await expect(runRecordedJob('scrape', job(id, 0), id, context(producer), work)).rejects.toThrow('target reset the connection');
    // Failed within PROCESSING_MARK_DELAY_MS: never marked processing, and not failed while a retry is left.
    expect((await stores.records.get('scrape', id))?.status).toBe('received');
    await expect(runRecordedJob('scrape', job(id, 2), id, context(producer), work)).rejects.toThrow('E008: target reset the connection');
    expect(await stores.records.get('scrape', id)).toMatchObject({ status: 'failed', error: { code: 'E008', message: 'target reset the connection' } });
    expect(added).toHaveLength(1);
  });

  it('says processing once a job has run a moment, and goes from received to its outcome when it is quicker', async () => {
    const { producer } = flakyWebhooks(0);
    const slow = await newRequest();
    const statuses: string[] = [];
    const slowWork = async () => {
      await new Promise((r) => setTimeout(r, PROCESSING_MARK_DELAY_MS + 150));
      statuses.push((await stores.records.get('scrape', slow))!.status);
      return { result: { text: 'slow' } };
    };
    await runRecordedJob('scrape', job(slow, 0), slow, context(producer), slowWork);
    expect(statuses).toEqual(['processing']);
    expect((await stores.records.get('scrape', slow))?.status).toBe('completed');

    const quick = await newRequest();
    const seen: string[] = [];
    const listener = testRedis();
    await listener.subscribe(`${prefix}:record-endings`);
    listener.on('message', (_c: string, notice: string) => seen.push(notice.split('\n')[0]));
    await runRecordedJob('scrape', job(quick, 0), quick, context(producer), async () => ({ result: { text: 'quick' } }));
    await new Promise((r) => setTimeout(r, PROCESSING_MARK_DELAY_MS + 50));
    expect(await stores.records.get('scrape', quick)).toMatchObject({ status: 'completed', result: { text: 'quick' } });
    expect(seen).toEqual([`scrape ${quick}`]);
    listener.disconnect();
  });

  it('works on a first run while the record is read, but reads it first on a retry or after a stall', async () => {
    const { producer } = flakyWebhooks(0);
    let works = 0;
    const work = async () => ({ result: { text: `run ${++works}` } });
    const missing = newRequestId(); // no record: expired, or never written
    await expect(runRecordedJob('scrape', job(missing, 0), missing, context(producer), work)).resolves.toEqual({ status: 'failed' });
    expect(works).toBe(1);
    await expect(runRecordedJob('scrape', job(missing, 1), missing, context(producer), work)).resolves.toEqual({ status: 'failed' });
    await expect(runRecordedJob('scrape', job(missing, 0, 3, 1), missing, context(producer), work)).resolves.toEqual({ status: 'failed' });
    expect(works).toBe(1);
    expect(await stores.records.get('scrape', missing)).toBeNull();
  });

  it('announces the end only once the after-completion step (the result cache) is written', async () => {
    const { producer } = flakyWebhooks(0);
    const id = await newRequest();
    let cacheWritten = false;
    const heard: boolean[] = [];
    const listener = testRedis();
    await listener.subscribe(`${prefix}:record-endings`);
    listener.on('message', (_c: string, notice: string) => {
      if (notice.startsWith(`scrape ${id}`)) heard.push(cacheWritten);
    });
    const afterComplete = async () => {
      await new Promise((r) => setTimeout(r, 50));
      cacheWritten = true;
    };
    await runRecordedJob('scrape', job(id, 0), id, context(producer), async () => ({ result: { text: 'cached' } }), afterComplete);
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([true]);
    listener.disconnect();
  });
});
