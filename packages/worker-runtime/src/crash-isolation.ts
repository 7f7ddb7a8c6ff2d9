import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { createRedis, Logger } from '@gleaner/platform';
import { deferJob } from './defer-job.js';
import { Keyspace } from '@gleaner/store';

type Redis = ReturnType<typeof createRedis>;

/**
 * Why a job was failed by crash isolation (matched by the registry's failed-for-good hook, like
 * BullMQ's own "stalled more than allowable limit").
 */
export const CRASHED_WHILE_ALONE = 'job crashed its worker while running alone';

/**
 * Stalls BullMQ tolerates before failing a job on its own: only a backstop here (a job that
 * crashes its workers is failed by crash isolation after two crashes). A job waiting for its turn
 * to run alone can be stalled by other jobs' crashes, which are not its fault; so can every job
 * when Redis is away longer than a lock lasts.
 */
export const STALLS_BACKSTOP = 5;

/**
 * How long a job that arrives while its process isolates another one waits before it is offered
 * again: 1 s, doubled while the isolation lasts, at most 8 s.
 */
const DEFER_WHILE_ISOLATING = { firstMs: 1_000, maxMs: 8_000 };

/** How long the mark of a job running alone is kept (it is deleted when the run ends). */
const MARK_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What every registry of the process shares: "alone" means alone in the process (`pnpm start`
 * runs every service in one, and a crash takes all of them down together).
 */
interface ProcessJobs {
  /** Jobs running beside others. */
  shared: number;
  /** Suspects running alone or waiting for their turn. */
  suspects: number;
  /** The end of the last suspect's turn: suspects take turns in arrival order. */
  lastTurn: Promise<void>;
  idleWaiters: Array<() => void>;
  /** Every running BullMQ worker of the process, paused while a suspect has its turn. */
  workers: Set<Worker>;
}

const processJobs: ProcessJobs = { shared: 0, suspects: 0, lastTurn: Promise.resolve(), idleWaiters: [], workers: new Set() };

/**
 * Runs every job of a process's workers so that a process crash fails only the job that causes it
 * (issue 24: a tenant's job that crashed the worker twice also failed every other account's job
 * running beside it both times, as "stalled more than allowable limit").
 *
 * A job is found stalled when its worker died while running it, alone or beside others: nothing
 * tells the culprit from the bystanders. So a job run again after a stall (`stalledCounter` > 0,
 * a suspect) runs alone: its process stops taking jobs (its workers are paused), waits for the
 * jobs it runs to end, marks the suspect in Redis and runs it with nothing beside it. A suspect
 * found marked when it is picked up again crashed a worker while it was alone: it is failed
 * (CRASHED_WHILE_ALONE) without running a third time. A bystander completes on its lone run, or
 * fails for its own reasons; it was never charged an attempt (a stall does not count as one).
 *
 * Suspects of one process run one after another; other processes keep working and isolate their
 * own. Jobs that arrive while a process isolates (fetched just before its workers paused) are
 * delayed a moment, not run beside the suspect. The state is the process's, shared by every
 * registry in it.
 */
export class CrashIsolation {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly logger: Logger,
  ) {}

  /** Registers a worker to pause while a suspect of the process runs alone. */
  watch(worker: Worker): void {
    processJobs.workers.add(worker);
  }

  /** A closing worker is not resumed after a suspect's turn. */
  forget(worker: Worker): void {
    processJobs.workers.delete(worker);
  }

  /** True while the process's workers are paused for a suspect (they take no jobs meanwhile). */
  get isolating(): boolean {
    return processJobs.suspects > 0;
  }

  async run<R>(queue: string, job: Job, work: () => Promise<R>): Promise<R> {
    if (job.stalledCounter > 0) return this.runAlone(queue, job, work);
    if (processJobs.suspects > 0) return deferJob(this.redis, job, DEFER_WHILE_ISOLATING);
    processJobs.shared++;
    try {
      return await work();
    } finally {
      processJobs.shared--;
      if (processJobs.shared === 0) for (const wake of processJobs.idleWaiters.splice(0)) wake();
    }
  }

  private async runAlone<R>(queue: string, job: Job, work: () => Promise<R>): Promise<R> {
    const log = this.logger.child({ queue, jobId: job.id, stalls: job.stalledCounter });
    processJobs.suspects++;
    if (processJobs.suspects === 1) await Promise.all([...processJobs.workers].map((w) => w.pause(true)));
    const previousTurn = processJobs.lastTurn;
    let endTurn!: () => void;
    processJobs.lastTurn = new Promise((resolve) => (endTurn = resolve));
    const mark = new Keyspace(this.keyPrefix).crashIsolationMark(queue, String(job.id));
    let marked = false;
    try {
      await previousTurn;
      if (processJobs.shared > 0) {
        log.info('stalled job waits to run alone', { runningBeside: processJobs.shared });
        await new Promise<void>((resolve) => processJobs.idleWaiters.push(resolve));
      }
      // The mark counts runs alone that started and never ended: one found means this job's
      // process died while it ran with nothing beside it.
      const [[, started]] = (await this.redis.multi().incr(mark).pexpire(mark, MARK_TTL_MS).exec()) as [[Error | null, number], unknown];
      marked = true;
      if (started > 1) {
        log.warn('stalled job crashed its worker while running alone: failed', {});
        throw new UnrecoverableError(CRASHED_WHILE_ALONE);
      }
      log.warn('stalled job runs alone, to learn whether it crashed its worker', {});
      return await work();
    } finally {
      if (marked) await this.redis.del(mark).catch((e) => log.warn('could not clear the crash-isolation mark', { error: (e as Error).message }));
      endTurn();
      processJobs.suspects--;
      if (processJobs.suspects === 0) for (const w of processJobs.workers) void w.resume();
    }
  }
}
