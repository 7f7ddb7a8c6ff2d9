import { UnrecoverableError, type Job } from 'bullmq';
import { webhookDeliveryId, type QueueProducer, type WebhookJob } from '@gleaner/queues';
import type { Family, RecordError, RequestRecord, RequestRecordStore, WebhookSubscriptionStore } from '@gleaner/store';
import { requestFailures, type Logger, type RedisClient } from '@gleaner/platform';
import { JobFailure } from './job-failure.js';

export interface RecordedJobContext {
  records: RequestRecordStore;
  subscriptions: WebhookSubscriptionStore;
  webhooks: QueueProducer<WebhookJob, unknown>;
  logger: Logger;
  /** Development mode keeps stack traces in failed records (shown as `error_trace`). */
  includeTraces: boolean;
  /** Maps an unexpected error to the family's record error (e.g. E008 / 500-001). */
  unexpectedError: (err: Error) => RecordError;
  /** Whether this run still holds its job (jobLockHolder); without it every run does. */
  holdsJob?: (job: Job) => Promise<boolean>;
}

/**
 * Whether a run still holds its job's BullMQ lock. A worker cut off from Redis (its host's link
 * down) loses its lock once it lapses, and another worker takes the job over; the cut-off run's
 * own failures (a target it could no longer reach) say nothing about the request then, and must
 * not be recorded as its outcome ahead of the run that holds the job.
 */
export function jobLockHolder(redis: RedisClient): (job: Job) => Promise<boolean> {
  return async (job) => !job.token || (await redis.get(`${job.queueQualifiedName}:${job.id}:lock`)) === job.token;
}

function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * Runs one job against its request record: `processing` once it has run a moment
 * (PROCESSING_MARK_DELAY_MS), `completed` with the result, or `failed` with the family's error once
 * no retry is left. The record is written from inside the processor, before BullMQ marks the job
 * finished, so a waiting gateway always reads the outcome (and hears of it: RecordEndings).
 */
export async function runRecordedJob<R extends object>(
  family: Family,
  job: Job,
  requestId: string,
  ctx: RecordedJobContext,
  work: () => Promise<{ result: R; extra?: Pick<Partial<RequestRecord>, 'usage' | 'progress'> }>,
  afterComplete?: (record: RequestRecord) => Promise<void>,
): Promise<{ status: 'completed' | 'failed' }> {
  const log = ctx.logger.child({ requestId, jobId: job.id, family, attempt: job.attemptsMade + 1 });
  /**
   * What to do with the record as read, when that is not to work on it: nothing stored (expired,
   * or never written: nobody to answer), or an outcome already recorded. Null: work on it.
   */
  const settleWithoutWork = async (started: RequestRecord | null): Promise<{ status: 'completed' | 'failed' } | null> => {
    if (!started) {
      log.warn('request record missing, dropping job');
      return { status: 'failed' };
    }
    if (started.status !== 'completed' && started.status !== 'failed') return null;
    // The outcome is already recorded: this is a stalled job run again (its lock expired during a
    // Redis outage, or its worker died after writing the record), or one whose other run recorded
    // first while this one worked. Working again could turn a delivered result into a failure (the
    // target may answer differently now) and costs a second fetch or LLM call; only finish what may
    // have been cut short. Found by tests/chaos.test.ts.
    log.warn('outcome already recorded, kept', { status: started.status });
    if (started.status === 'completed' && afterComplete) await afterComplete(started).catch((e) => log.warn('after-completion step failed', { error: (e as Error).message }));
    await enqueueWebhook(started, ctx); // idempotent: the delivery id is the job id
    if (started.status === 'failed') throw new UnrecoverableError(`${started.error?.code}: ${started.error?.message}`);
    return { status: 'completed' };
  };
  const reading = ctx.records.readForUpdate(family, requestId);
  reading.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  // Only a job run again (a retry, or after a stall) can find its outcome already recorded, and
  // only then must the work wait for the record: on a first run the work starts while it is read,
  // one round trip fewer for a caller waiting in the 20 s window.
  const firstRun = job.attemptsMade === 0 && !job.stalledCounter;
  if (!firstRun) {
    const early = await settleWithoutWork(await reading);
    if (early) return early;
  }
  const marking = markProcessingUnlessQuick(family, requestId, ctx);
  let outcome: Awaited<ReturnType<typeof work>>;
  try {
    outcome = await work();
  } catch (err) {
    await marking.settled();
    const failure = err instanceof JobFailure ? err : null;
    const retryable = failure ? failure.retryable : !(err instanceof UnrecoverableError);
    if (retryable && !isLastAttempt(job)) {
      log.warn('attempt failed, will retry', { error: (err as Error).message });
      throw err;
    }
    // A run whose job another worker took over (its lock lapsed while it was cut off) leaves the
    // outcome to that run; an unreadable lock (Redis away) counts as held, as before.
    if (ctx.holdsJob && !(await ctx.holdsJob(job).catch(() => true))) {
      log.warn('job taken over by another worker while this run was cut off: its failure is not recorded', { error: (err as Error).message });
      throw err;
    }
    const recordError = failure ? failure.toRecordError(ctx.includeTraces) : { ...ctx.unexpectedError(err as Error), trace: ctx.includeTraces ? (err as Error).stack : undefined };
    const record = await ctx.records.fail(family, requestId, recordError, failure?.usage ? { usage: failure.usage } : {});
    // Another run of this job recorded its result meanwhile (they overlap after a Redis outage):
    // that result stays, and this run ends as it did.
    if (record?.status === 'completed') return (await settleWithoutWork(record))!;
    requestFailures.inc({ family, code: recordError.code });
    log.warn('request failed', { code: recordError.code, error: recordError.message });
    if (record) await enqueueWebhook(record, ctx);
    // The outcome is recorded; the job itself ends without further retries.
    throw new UnrecoverableError(`${recordError.code}: ${recordError.message}`);
  }
  // The work succeeded. Recording it or queueing its webhook can still fail (Redis away): that
  // error goes to BullMQ as is, and the retry finds the outcome recorded and only finishes these
  // steps (above), so a storage hiccup never turns a result into a failure.
  await marking.settled();
  const started = await reading;
  const early = firstRun ? await settleWithoutWork(started) : null;
  if (early) return early;
  // The account's subscriptions are read while the record is written, and the cache is written
  // while the deliveries are queued: each pair is independent, and the job's round trip is what a
  // caller waiting on the 20 s window sees.
  const subscriptions = ctx.subscriptions.forFamily(started!.accountId, family);
  subscriptions.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  // With an after-completion step (the result cache), the end is announced once that is written:
  // a caller answered in the 20 s window may look the cache up at once.
  const record = await ctx.records.complete(family, requestId, outcome.result, outcome.extra, { announce: !afterComplete });
  // Another run recorded a failure first, and it may have been delivered: it stays (this throws).
  if (record?.status === 'failed') return (await settleWithoutWork(record))!;
  log.info('request completed');
  if (record) {
    // Secondary writes (the result cache) must not turn a delivered result into a failure; nor
    // must a lost announcement (a waiting gateway reads the record when its window ends).
    const cachedThenAnnounced = afterComplete?.(record)
      .catch((e) => log.warn('after-completion step failed', { error: (e as Error).message }))
      .then(() => ctx.records.announceEnded(record))
      .catch((e) => log.warn('announcing the completion failed', { error: (e as Error).message }));
    await Promise.all([cachedThenAnnounced, enqueueWebhook(record, ctx, subscriptions)]);
  }
  return { status: 'completed' };
}

/**
 * How long a job runs before its record says `processing`. A job done sooner goes from `received`
 * straight to its outcome: one write fewer on the round trip a caller in the 20 s window waits for
 * (no poll comes that fast to see the difference).
 */
export const PROCESSING_MARK_DELAY_MS = 100;

/**
 * Marks the record `processing` once the job has run for PROCESSING_MARK_DELAY_MS. `settled()`
 * cancels a mark not yet sent, or waits for one sent, so the job's next write follows it.
 */
function markProcessingUnlessQuick(family: Family, requestId: string, ctx: RecordedJobContext): { settled(): Promise<unknown> } {
  let sent: Promise<unknown> | null = null;
  const timer = setTimeout(() => {
    sent = ctx.records.markProcessing(family, requestId);
    sent.catch(() => undefined); // awaited by settled(); not an unhandled rejection meanwhile
  }, PROCESSING_MARK_DELAY_MS);
  return {
    settled: () => {
      clearTimeout(timer);
      return sent ?? Promise.resolve();
    },
  };
}

/**
 * For jobs that failed for good outside the processor (stalled too often): records the failure
 * unless the record already ended, and notifies the webhook.
 */
export async function recordFailedForGood(family: Family, requestId: string, ctx: RecordedJobContext, error: RecordError): Promise<void> {
  const current = await ctx.records.get(family, requestId);
  if (!current || current.status === 'completed' || current.status === 'failed') return;
  const record = await ctx.records.fail(family, requestId, error);
  if (record) await enqueueWebhook(record, ctx);
}

/**
 * Hands the completion notice to the dispatcher: the request's own webhook and every matching
 * subscription (`subscriptions`: their lookup when the caller already started it).
 */
async function enqueueWebhook(
  record: RequestRecord,
  ctx: RecordedJobContext,
  subscriptions = ctx.subscriptions.forFamily(record.accountId, record.family),
): Promise<void> {
  const targets: Array<{ url: string; subscriptionId?: string }> = [];
  if (record.webhook?.url) targets.push({ url: record.webhook.url });
  for (const sub of await subscriptions) targets.push({ url: sub.url, subscriptionId: sub.id });
  for (const target of targets) {
    const deliveryId = webhookDeliveryId(record.id, target.subscriptionId);
    await ctx.webhooks.add({ deliveryId, requestId: record.id, accountId: record.accountId, family: record.family, ...target }, deliveryId);
    ctx.logger.info('webhook delivery queued', { requestId: record.id, deliveryId });
  }
}

