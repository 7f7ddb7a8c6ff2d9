import type { Job } from 'bullmq';
import type { createRedis, Logger } from '@gleaner/platform';
import { deferJob } from './defer-job.js';
import { Keyspace } from '@gleaner/store';

type Redis = ReturnType<typeof createRedis>;

/** One service's share rule: at most `max` running jobs per account, over every process. */
export interface AccountCapOptions {
  max: number;
  /** Queues sharing one count (the scraper's two families); default the queue's name. */
  group?: string;
  /** The account a job belongs to; default its payload's `accountId`. */
  accountOf?: (payload: object) => string | undefined;
}

/**
 * The default cap: half of one process's concurrency (at least one), so that with one worker
 * process an account can hold at most half of its slots and another account always finds one.
 */
export function defaultAccountCap(concurrency: number): number {
  return Math.max(1, Math.ceil(concurrency / 2));
}

/**
 * A service's `accountCap` registration option from its configuration: ACCOUNT_MAX_CONCURRENT_JOBS
 * when set (0 turns the cap off), else the default for its concurrency.
 */
export function accountCapFrom(configured: number | undefined, concurrency: number, group?: string): AccountCapOptions | undefined {
  const max = configured ?? defaultAccountCap(concurrency);
  return max > 0 ? { max, ...(group ? { group } : {}) } : undefined;
}

/**
 * Wait of a job over its account's cap before it is offered again: 1 s, doubled while it stays
 * over, at most 8 s (±50 % jitter). A place that frees stays empty at most that long, while a
 * backlog of thousands is offered to the workers hundreds of times a second, not thousands.
 */
export const OVER_CAP_WAIT = { firstMs: 1_000, maxMs: 8_000 };

/**
 * Running jobs of one account: a sorted set of job ids scored by when their lease ends (Redis
 * time), so a job whose process died stops counting once its lease passes. Takes a place when
 * the account has fewer than ARGV[2] live leases, or renews the job's own.
 */
const TAKE_PLACE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1`;

/**
 * Fair sharing between accounts (issue 24: 40 hanging scrapes of one account made another's
 * trivial scrape wait 85 s). A job runs only while its account holds fewer than `max` places of
 * its group, counted in Redis across every worker process; a job over the cap goes back to the
 * queue as a delayed job (deferJob: no attempt spent, no start counted) and so holds no worker
 * slot while it waits. Places are leases renewed while the job runs, like BullMQ's
 * locks: a process that dies frees its places when they lapse.
 */
export class AccountJobCap {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly options: Required<Pick<AccountCapOptions, 'max' | 'group'>> & Pick<AccountCapOptions, 'accountOf'>,
    /** Lease of a place; renewed every third of it while the job runs. */
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  async run<R>(payload: object, job: Job, work: () => Promise<R>): Promise<R> {
    const account = this.options.accountOf ? this.options.accountOf(payload) : (payload as { accountId?: unknown }).accountId;
    if (typeof account !== 'string' || !account) return work();
    const key = new Keyspace(this.keyPrefix).accountJobs(this.options.group, account);
    const member = `${job.queueName}:${job.id}`;
    const take = () => this.redis.eval(TAKE_PLACE, 1, key, member, this.options.max, this.leaseMs) as Promise<number>;
    if ((await take()) !== 1) {
      this.logger.debug('job over its account cap, delayed', { queue: job.queueName, jobId: job.id, accountId: account, max: this.options.max });
      return deferJob(this.redis, job, OVER_CAP_WAIT);
    }
    const renewal = setInterval(() => {
      take().catch((e) => this.logger.warn('could not renew an account place', { jobId: job.id, error: (e as Error).message }));
    }, Math.max(100, Math.floor(this.leaseMs / 3)));
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this.redis.zrem(key, member).catch((e) => this.logger.warn('could not give back an account place', { jobId: job.id, error: (e as Error).message }));
    }
  }
}
