import { DelayedError, type Job } from 'bullmq';
import type { createRedis } from '@gleaner/platform';

type Redis = ReturnType<typeof createRedis>;

/**
 * While the caller still holds the job's lock: takes back the start BullMQ counted when it made
 * the job active (its `ats` field, read as `job.attemptsStarted`), and counts the deferrals of the
 * job in a row (the last one less than ARGV[2] ms ago) in fields of its own. Returns that count.
 */
const DEFER_START = `
if redis.call('GET', KEYS[1] .. ':lock') ~= ARGV[1] then return 1 end
local started = tonumber(redis.call('HGET', KEYS[1], 'ats') or '0')
if started > 0 then redis.call('HINCRBY', KEYS[1], 'ats', -1) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('HGET', KEYS[1], 'gleaner-deferred-at') or '0')
local inARow = 1
if now - last < tonumber(ARGV[2]) then inARow = tonumber(redis.call('HGET', KEYS[1], 'gleaner-deferrals') or '0') + 1 end
redis.call('HSET', KEYS[1], 'gleaner-deferred-at', now, 'gleaner-deferrals', inARow)
return inARow`;

/** How long a job waits before it is offered again: `firstMs` doubled per deferral in a row, at most `maxMs`. */
export interface DeferWait {
  firstMs: number;
  maxMs: number;
}

/**
 * Puts a running job back as a delayed job as if it had not started: no attempt is spent
 * (BullMQ's moveToDelayed) and the start is not counted in `attemptsStarted`, which BullMQ
 * advances each time a job becomes active and which numbers the webhook dispatcher's attempts
 * (`X-Webhook-Attempt`): a delivery deferred for its account's cap five times and then sent is
 * sent as attempt 1. Throws BullMQ's DelayedError, which the caller lets through to the worker.
 *
 * The wait doubles while the job is deferred again and again (±50 % jitter), so that a backlog of
 * one account over its cap is not offered to the workers every second: 2,000 deliveries of one
 * account cost about 1,500 deferrals a second with a fixed one-second wait.
 *
 * The start is taken back before the move: if the process dies in between, the job is found
 * stalled and its next run counts as its start, as any run cut off by a crash does.
 */
export async function deferJob(redis: Redis, job: Job, wait: DeferWait): Promise<never> {
  // Deferrals further apart than any wait (with its jitter and some queueing) start a new row.
  const inARow = (await redis.eval(DEFER_START, 1, `${job.queueQualifiedName}:${job.id}`, job.token ?? '', 3 * wait.maxMs)) as number;
  const waitMs = Math.round(Math.min(wait.firstMs * 2 ** (inARow - 1), wait.maxMs) * (0.5 + Math.random()));
  await job.moveToDelayed(Date.now() + waitMs, job.token);
  throw new DelayedError();
}
