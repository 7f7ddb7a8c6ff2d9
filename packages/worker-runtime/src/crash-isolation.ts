import { DelayedError, UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { createRedis, Logger } from '@gleaner/platform';

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

/** How long a job that arrives while its process isolates another one waits before it is offered again. */
const DEFER_WHILE_ISOLATING_MS = 1_000;

/** How long the mark of a job running alone is kept (it is deleted when the run ends). */
const MARK_TTL_MS = 24 * 60 * 60 * 1000;

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
 * delayed a moment, not run beside the suspect.
 */
export class CrashIsolation {
  /** Jobs of this process running beside others. */
  private shared = 0;
  /** Suspects in this process, running alone or waiting for their turn. */
  private suspects = 0;
  /** The end of the last suspect's turn: suspects take turns in arrival order. */
  private lastTurn: Promise<void> = Promise.resolve();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly workers: () => Worker[],
    private readonly logger: Logger,
  ) {}

  /** True while the process's workers are paused for a suspect (they take no jobs meanwhile). */
  get isolating(): boolean {
    return this.suspects > 0;
  }

  async run<R>(queue: string, job: Job, work: () => Promise<R>): Promise<R> {
    if (job.stalledCounter > 0) return this.runAlone(queue, job, work);
    if (this.suspects > 0) {
      await job.moveToDelayed(Date.now() + DEFER_WHILE_ISOLATING_MS, job.token);
      throw new DelayedError();
    }
    this.shared++;
    try {
      return await work();
    } finally {
      this.shared--;
      if (this.shared === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private async runAlone<R>(queue: string, job: Job, work: () => Promise<R>): Promise<R> {
    const log = this.logger.child({ queue, jobId: job.id, stalls: job.stalledCounter });
    this.suspects++;
    if (this.suspects === 1) await Promise.all(this.workers().map((w) => w.pause(true)));
    const previousTurn = this.lastTurn;
    let endTurn!: () => void;
    this.lastTurn = new Promise((resolve) => (endTurn = resolve));
    const mark = `${this.keyPrefix}:crash-isolation:${queue}:${job.id}`;
    let marked = false;
    try {
      await previousTurn;
      if (this.shared > 0) {
        log.info('stalled job waits to run alone', { runningBeside: this.shared });
        await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
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
      this.suspects--;
      if (this.suspects === 0) for (const w of this.workers()) w.resume();
    }
  }
}
