import { Queue, type Job, type Worker } from 'bullmq';
import { createQueueWorker, type Processor, type QueueConnection, type QueueContract, type QueueWorkerOptions } from '@gleaner/queues';
import { createRedis, jobDuration, onMetricsScrape, queueDepth, QUEUE_DEPTH_STATES, type Logger } from '@gleaner/platform';
import { AccountJobCap, type AccountCapOptions } from './account-job-cap.js';
import { CRASHED_WHILE_ALONE, CrashIsolation, STALLS_BACKSTOP } from './crash-isolation.js';

type Redis = ReturnType<typeof createRedis>;

/**
 * Why a job failed for good: its attempts ran out, its processor threw an unrecoverable error, or
 * it stalled too often (it kept killing its workers, so no attempt of the processor finished).
 */
export type FailedForGoodCause = 'attempts' | 'unrecoverable' | 'stalled';

export interface RegisterOptions extends Omit<QueueWorkerOptions, 'logger' | 'maxStalledCount'> {
  /** Runs when a job has failed for good by any route, including too many stalls (a job that kills its workers). */
  onFailedForGood?: (job: Job, error: Error, cause: FailedForGoodCause) => Promise<void>;
  /** Fair sharing: at most `max` running jobs per account over every process (see AccountJobCap). */
  accountCap?: AccountCapOptions;
}

/** BullMQ's reason for a job failed by the stalled-job check. */
const STALLED_TOO_OFTEN = /stalled more than allowable limit/i;

function failedForGoodCause(job: Job, err: Error): FailedForGoodCause | null {
  if (STALLED_TOO_OFTEN.test(err.message) || err.message === CRASHED_WHILE_ALONE) return 'stalled';
  if (err.name === 'UnrecoverableError') return 'unrecoverable';
  if (job.attemptsMade >= (job.opts.attempts ?? 1)) return 'attempts';
  return null;
}

/**
 * The one place a service creates its BullMQ workers: one handler per queue (a second
 * registration is a bug and throws at boot), shared logging, readiness and ordered close.
 */
export class WorkerRegistry {
  private readonly workers = new Map<string, Worker>();
  private depthSampling: { queues: Queue[]; client: ReturnType<typeof createRedis>; stop: () => void } | null = null;
  private closing = false;
  /** Crash isolation and account caps keep their state here (opened by the first registration). */
  private guards: { redis: Redis; isolation: CrashIsolation } | null = null;

  constructor(
    private readonly connection: QueueConnection,
    private readonly logger: Logger,
    /** Service-wide defaults for stall detection (WORKER_LOCK_DURATION_MS, WORKER_STALLED_INTERVAL_MS). */
    private readonly stallDefaults: { lockDuration?: number; stalledInterval?: number } = {},
  ) {}

  private openGuards(): { redis: Redis; isolation: CrashIsolation } {
    if (!this.guards) {
      const redis = createRedis(this.connection.target, 'worker', 'worker-guards');
      this.guards = { redis, isolation: new CrashIsolation(redis, this.connection.prefix, this.logger) };
    }
    return this.guards;
  }

  /**
   * Every job runs under crash isolation (a job found stalled runs alone, so only the job that
   * crashes workers fails) and, with `accountCap`, within its account's share of running jobs.
   */
  register<P extends object, R>(contract: QueueContract<P, R>, processor: Processor<P, R>, options: RegisterOptions): Worker<P, R> {
    if (this.workers.has(contract.name)) throw new Error(`queue ${contract.name} already has a handler`);
    const { redis, isolation } = this.openGuards();
    const { accountCap, ...workerOptions } = options;
    const cap = accountCap
      ? new AccountJobCap(redis, this.connection.prefix, { max: accountCap.max, group: accountCap.group ?? contract.name, accountOf: accountCap.accountOf }, this.stallDefaults.lockDuration ?? 30_000, this.logger)
      : null;
    const isolated: Processor<P, R> = (payload, job) => isolation.run(contract.name, job, () => processor(payload, job));
    const guarded: Processor<P, R> = cap ? (payload, job) => cap.run(payload, job, () => isolated(payload, job)) : isolated;
    const worker = createQueueWorker(contract, this.connection, guarded, { ...this.stallDefaults, ...workerOptions, maxStalledCount: STALLS_BACKSTOP, logger: this.logger });
    isolation.watch(worker as unknown as Worker);
    const observe = (job: Job | undefined, outcome: string) => {
      if (job?.processedOn) jobDuration.observe({ queue: contract.name, outcome }, ((job.finishedOn ?? Date.now()) - job.processedOn) / 1000);
    };
    worker.on('completed', (job) => observe(job, 'completed'));
    worker.on('failed', (job) => observe(job, 'failed'));
    if (options.onFailedForGood) {
      const hook = options.onFailedForGood;
      worker.on('failed', (job, err) => {
        const cause = job ? failedForGoodCause(job, err) : null;
        if (job && cause) hook(job, err, cause).catch((e) => this.logger.error('failed-for-good hook failed', { queue: contract.name, jobId: job.id, error: (e as Error).message }));
      });
    }
    this.workers.set(contract.name, worker as unknown as Worker);
    return worker;
  }

  async waitUntilReady(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.waitUntilReady()));
  }

  /**
   * Every worker consumes its queue. False from the moment close() starts: a BullMQ worker still
   * reports running while it drains its active jobs, but it takes no new ones.
   */
  isRunning(): boolean {
    // Workers paused while a stalled job runs alone may have stopped their loops: still in service.
    return !this.closing && (this.guards?.isolation.isolating || [...this.workers.values()].every((w) => w.isRunning()));
  }

  get queueNames(): string[] {
    return [...this.workers.keys()];
  }

  /**
   * Reports the depth of every registered queue in `gleaner_queue_jobs` each time `/metrics` is
   * scraped. Its own fail-fast client: a scrape during a Redis outage must not pile commands up
   * in a worker client's offline queue. Stopped by `close()`.
   */
  reportQueueDepths(): void {
    if (this.depthSampling) return;
    const client = createRedis(this.connection.target, 'producer', 'metrics');
    const queues = this.queueNames.map((name) => {
      // Read only: its options would otherwise replace the producer's in the queue's meta.
      const queue = new Queue(name, { connection: client, prefix: this.connection.prefix, skipMetasUpdate: true });
      queue.on('error', () => undefined);
      return queue;
    });
    const stop = onMetricsScrape(async () => {
      for (const queue of queues) {
        const counts = await queue.getJobCounts(...QUEUE_DEPTH_STATES);
        for (const [state, n] of Object.entries(counts)) queueDepth.set({ queue: queue.name, state }, n);
      }
    });
    this.depthSampling = { queues, client, stop };
  }

  /** Lets running jobs finish (within the caller's deadline), then disconnects. */
  async close(): Promise<void> {
    this.closing = true;
    for (const worker of this.workers.values()) this.guards?.isolation.forget(worker);
    const sampling = this.depthSampling;
    this.depthSampling = null;
    sampling?.stop();
    await Promise.all([...this.workers.values()].map((w) => w.close()));
    this.guards?.redis.disconnect();
    if (sampling) {
      await Promise.all(sampling.queues.map((q) => q.close().catch(() => undefined)));
      sampling.client.disconnect();
    }
  }
}
