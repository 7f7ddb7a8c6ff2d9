import { DelayedError, type Job } from 'bullmq';
import type { createRedis } from '@gleaner/platform';

type Redis = ReturnType<typeof createRedis>;

/**
 * Takes back the start BullMQ counted when it made the job active (its `ats` field, read as
 * `job.attemptsStarted`), while the caller still holds the job's lock. Returns -1 when it does not.
 */
const UNCOUNT_START = `
if redis.call('GET', KEYS[1] .. ':lock') ~= ARGV[1] then return -1 end
local started = tonumber(redis.call('HGET', KEYS[1], 'ats') or '0')
if started > 0 then redis.call('HINCRBY', KEYS[1], 'ats', -1) end
return started`;

/**
 * Puts a running job back as a delayed job, to be offered again in `delayMs`, as if it had not
 * started: no attempt is spent (BullMQ's moveToDelayed) and the start is not counted in
 * `attemptsStarted`, which BullMQ advances each time a job becomes active and which numbers the
 * webhook dispatcher's attempts (`X-Webhook-Attempt`): a delivery deferred for its account's cap
 * five times and then sent is sent as attempt 1. Throws BullMQ's DelayedError, which the caller
 * lets through to the worker (the job is not completed or failed).
 *
 * The start is taken back before the move: if the process dies in between, the job is found
 * stalled and its next run counts as its start, as any run cut off by a crash does.
 */
export async function deferJob(redis: Redis, job: Job, delayMs: number): Promise<never> {
  await redis.eval(UNCOUNT_START, 1, `${job.queueQualifiedName}:${job.id}`, job.token ?? '');
  await job.moveToDelayed(Date.now() + delayMs, job.token);
  throw new DelayedError();
}
