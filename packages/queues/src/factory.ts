import { Queue, QueueEvents, Worker, UnrecoverableError, type ConnectionOptions, type Job, type WorkerOptions } from 'bullmq';
import { bullmqConnection, createRedis, releaseBullmqConnection, reportRedisError, type DeploymentRedis, type Logger, type RedisClient } from '@gleaner/platform';
import { parsePayload, InvalidPayloadError, type QueueContract } from './contract.js';

/**
 * The deployment's Redis and key prefix (deploymentRedis: slot-safe under Cluster); tests use a
 * prefix of their own so they never see each other's jobs.
 */
export type QueueConnection = DeploymentRedis;

/** How a wait for a job ended (`waitForFinish`). */
export type WaitOutcome<R> = { outcome: 'completed'; value: R } | { outcome: 'failed'; reason?: string } | { outcome: 'timeout' };

/**
 * Producer side of one queue: adds jobs (job id = request id) and waits on queue events for a job
 * to finish, always with a ttl. The producer's Redis client fails fast, so an unreachable Redis
 * turns into an error the caller maps to 503 instead of a request stuck in an offline queue.
 */
export class QueueProducer<P extends object, R> {
  readonly queue: Queue;
  private events: QueueEvents | null = null;
  private eventsConnection: ReturnType<typeof bullmqConnection> | null = null;
  private readonly client: RedisClient;
  private readonly ownsClient: boolean;

  /**
   * `client`: a fail-fast client to add jobs on, shared with the caller's other writes, so that a
   * write sent before `add` reaches Redis before the job does (the gateway writes a request's
   * record and adds its job without waiting in between). By default the producer opens its own.
   */
  constructor(
    readonly contract: QueueContract<P, R>,
    private readonly connection: QueueConnection,
    client?: RedisClient,
  ) {
    this.ownsClient = !client;
    this.client = client ?? createRedis(connection.target, 'producer', `producer:${contract.name}`);
    this.queue = new Queue(contract.name, {
      connection: this.client,
      prefix: connection.prefix,
      defaultJobOptions: contract.jobOptions,
      ...(contract.eventsMaxLen ? { streams: { events: { maxLen: contract.eventsMaxLen } } } : {}),
    });
    this.queue.on('error', () => undefined);
  }

  /** Lazily opens the blocking QueueEvents connection: only producers that wait need it. */
  private queueEvents(): QueueEvents {
    if (!this.events) {
      this.eventsConnection = bullmqConnection(this.connection.target, 'worker', `events:${this.contract.name}`);
      this.events = new QueueEvents(this.contract.name, {
        connection: this.eventsConnection as ConnectionOptions,
        prefix: this.connection.prefix,
      });
      this.events.on('error', () => undefined);
    }
    return this.events;
  }

  async ready(): Promise<void> {
    await this.queueEvents().waitUntilReady();
  }

  /**
   * Adds the job; its payload is typed here and validated where it is consumed (the worker
   * boundary), not twice: Joi took 0.13 ms a job here, a quarter of the add itself.
   */
  async add(payload: P, jobId: string): Promise<Job> {
    return this.queue.add(this.contract.name, payload, { ...this.contract.jobOptions, jobId });
  }

  /**
   * Resolves with the job's return value when it finishes inside `ttlMs`, 'failed' (with BullMQ's
   * failed reason) when it failed for good, or 'timeout'. Never rejects: a missing job or a lost connection is a timeout, which
   * callers answer with 202 (the status endpoint is the main path, this wait a convenience).
   *
   * Not BullMQ's `job.waitUntilFinished`: its promise executor makes its own Redis call, and when
   * Redis drops between the add and that call the rejection is left unhandled, which ends the
   * gateway process (Node's default). Found by tests/chaos.test.ts.
   */
  waitForFinish(job: Job, ttlMs: number): Promise<WaitOutcome<R>> {
    type Outcome = WaitOutcome<R>;
    const events = this.queueEvents() as unknown as NodeJS.EventEmitter;
    const jobId = String(job.id);
    return new Promise<Outcome>((resolve) => {
      const onCompleted = (args: { returnvalue: unknown }) => finish({ outcome: 'completed', value: args.returnvalue as R });
      const onFailed = (args: { failedReason?: string }) => finish({ outcome: 'failed', reason: args?.failedReason });
      const timer = setTimeout(() => finish({ outcome: 'timeout' }), ttlMs);
      const finish = (outcome: Outcome) => {
        clearTimeout(timer);
        events.off(`completed:${jobId}`, onCompleted);
        events.off(`failed:${jobId}`, onFailed);
        resolve(outcome);
      };
      events.on(`completed:${jobId}`, onCompleted);
      events.on(`failed:${jobId}`, onFailed);
      // It may have finished before the listeners were attached: look once. An unreachable Redis
      // is no answer; the events or the ttl decide.
      this.finishedAlready(jobId).then((outcome) => outcome && finish(outcome), () => undefined);
    });
  }

  private async finishedAlready(jobId: string): Promise<WaitOutcome<R> | null> {
    // Like BullMQ: look only once the event stream is being read, so no event falls in between.
    await this.queueEvents().waitUntilReady();
    const state = await this.queue.getJobState(jobId);
    if (state !== 'completed' && state !== 'failed') return null;
    const finished = await this.queue.getJob(jobId);
    if (state === 'failed') return { outcome: 'failed', reason: finished?.failedReason };
    return finished ? { outcome: 'completed', value: finished.returnvalue as R } : null;
  }

  async close(): Promise<void> {
    await this.events?.close();
    if (this.eventsConnection) releaseBullmqConnection(this.eventsConnection);
    await this.queue.close();
    if (this.ownsClient) this.client.disconnect();
  }
}

/** BullMQ's pause after a connection error in its fetch loop (see createQueueWorker). */
const WORKER_RETRY_AFTER_CONNECTION_ERROR_MS = 2_000;

/** Stalls a job survives: the first is recovered, the second fails it (see createQueueWorker). */
export const MAX_STALLED_COUNT = 1;

export type Processor<P, R> = (payload: P, job: Job<P>) => Promise<R>;

export interface QueueWorkerOptions {
  concurrency: number;
  logger: Logger;
  lockDuration?: number;
  stalledInterval?: number;
  /** Default MAX_STALLED_COUNT; the worker registry's crash isolation passes its own backstop. */
  maxStalledCount?: number;
  settings?: WorkerOptions['settings'];
  limiter?: WorkerOptions['limiter'];
}

/** Consumer side: validates every payload before the processor sees it. */
export function createQueueWorker<P extends object, R>(
  contract: QueueContract<P, R>,
  connection: QueueConnection,
  processor: Processor<P, R>,
  options: QueueWorkerOptions,
): Worker<P, R> {
  const bullConnection = bullmqConnection(connection.target, 'worker', `worker:${contract.name}`);
  const worker = new Worker<P, R>(
    contract.name,
    async (job) => {
      let payload: P;
      try {
        payload = parsePayload(contract, job.data);
      } catch (err) {
        // A malformed payload will be malformed on every retry.
        if (err instanceof InvalidPayloadError) throw new UnrecoverableError(err.message);
        throw err;
      }
      return processor(payload, job);
    },
    {
      connection: bullConnection as ConnectionOptions,
      prefix: connection.prefix,
      concurrency: options.concurrency,
      lockDuration: options.lockDuration ?? 30_000,
      // A worker killed mid-job leaves the job stalled; it is moved back to wait and picked up by
      // another worker. A second stall means the job itself kills workers: fail it rather than
      // let it take down one worker after another. BullMQ fails a job once its stall count
      // exceeds this number, so 1 allows exactly one recovery.
      maxStalledCount: options.maxStalledCount ?? MAX_STALLED_COUNT,
      stalledInterval: options.stalledInterval ?? 15_000,
      // After a connection error while fetching a job or recording its end, BullMQ pauses 15 s
      // by default before trying again: longer than a Sentinel or Cluster failover takes (2-6 s
      // here), so a worker idled well past it with jobs waiting. The reconnect backoff's cap instead.
      runRetryDelay: WORKER_RETRY_AFTER_CONNECTION_ERROR_MS,
      settings: options.settings,
      limiter: options.limiter,
      autorun: true,
    },
  );
  worker.once('closed', () => releaseBullmqConnection(bullConnection));
  const log = options.logger.child({ queue: contract.name });
  // A lost connection is one line per outage (every reconnect attempt of every worker reports it).
  worker.on('error', (err) => reportRedisError(connection.target, err, log) || log.error('worker error', { error: err.message }));
  worker.on('failed', (job, err) =>
    log.warn('job failed', { jobId: job?.id, attemptsMade: job?.attemptsMade, error: err.message }),
  );
  worker.on('stalled', (jobId) => log.warn('job stalled, will be retried', { jobId }));
  return worker;
}
