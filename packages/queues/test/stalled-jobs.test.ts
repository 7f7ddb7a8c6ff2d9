import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Queue, type Worker } from 'bullmq';
import Joi from 'joi';
import { createLogger } from '@gleaner/platform';
import { createQueueWorker, defineQueue, MAX_STALLED_COUNT, type QueueConnection } from '../src/index.js';
import { deleteKeysWithPrefix, testConnection, testPrefix, testQueue } from '../../../tests/support/redis.js';
import { waitFor } from '../../../tests/support/webhook-receiver.js';

/**
 * Stall handling as configured by createQueueWorker, on real Redis: a worker that dies mid-job is
 * simulated by closing it without waiting for its job (its lock is no longer renewed and lapses,
 * exactly as when the process is killed). A test-only queue: this is plumbing, not a feature.
 */
const prefix = testPrefix('stalls');
const connection: QueueConnection = testConnection(prefix);
const logger = createLogger('stalls-test', 'error');
const stallQueue = defineQueue<{ behaviour: 'always-hangs' | 'hangs-once' }, string>({
  name: 'stall-test',
  schema: Joi.object({ behaviour: Joi.string().valid('always-hangs', 'hangs-once').required() }),
  jobOptions: { attempts: 1 },
});

const open: Worker[] = [];
let queue: Queue;
/** How many times the processor started, per job id. */
const runs = new Map<string, number>();

/** A "worker process" whose jobs hang as told; short locks so a dead one is noticed in about a second. */
function startWorker(): Worker {
  const worker = createQueueWorker(
    stallQueue,
    connection,
    async (payload, job) => {
      const run = (runs.get(String(job.id)) ?? 0) + 1;
      runs.set(String(job.id), run);
      if (payload.behaviour === 'always-hangs' || run === 1) return new Promise<string>(() => undefined);
      return `finished on run ${run}`;
    },
    { concurrency: 1, logger, lockDuration: 1_000, stalledInterval: 300 },
  );
  open.push(worker);
  return worker;
}

/** What a SIGKILL does to a worker: it stops, its job's lock is no longer renewed. */
async function kill(worker: Worker): Promise<void> {
  await worker.close(true);
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close(true)));
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
});

afterAll(async () => {
  await deleteKeysWithPrefix(prefix);
});

describe('a job whose worker dies', () => {
  it('is recovered once and finishes on another worker', async () => {
    queue = testQueue(stallQueue.name, prefix);
    const first = startWorker();
    const job = await queue.add('job', { behaviour: 'hangs-once' }, { jobId: 'hangs-once' });
    await waitFor(() => runs.get('hangs-once') ?? 0, (n) => n >= 1, 10_000);
    startWorker();
    await kill(first);
    const state = await waitFor(() => job.getState(), (s) => s === 'completed' || s === 'failed', 20_000);
    expect(state).toBe('completed');
    expect(runs.get('hangs-once')).toBe(2);
    expect((await queue.getJob('hangs-once'))?.returnvalue).toBe('finished on run 2');
  }, 40_000);

  it(`is failed when it has killed ${MAX_STALLED_COUNT + 1} workers, without taking down another`, async () => {
    queue = testQueue(stallQueue.name, prefix);
    let current = startWorker();
    const job = await queue.add('job', { behaviour: 'always-hangs' }, { jobId: 'poison' });
    // The job kills each worker that runs it; a fresh worker takes over each time.
    for (let killed = 1; killed <= MAX_STALLED_COUNT + 1; killed++) {
      await waitFor(() => runs.get('poison') ?? 0, (n) => n >= killed, 10_000);
      expect(runs.get('poison')).toBe(killed);
      const next = startWorker();
      await kill(current);
      current = next;
    }
    const state = await waitFor(() => job.getState(), (s) => s === 'failed' || s === 'completed', 20_000);
    expect(state).toBe('failed');
    const failed = await queue.getJob('poison');
    expect(failed?.failedReason).toBe('job stalled more than allowable limit');
    // Two workers died; the third failed the job instead of running it.
    expect(runs.get('poison')).toBe(2);
    expect(MAX_STALLED_COUNT + 1).toBe(2); // README: "a job that kills workers twice is failed"
  }, 40_000);
});
