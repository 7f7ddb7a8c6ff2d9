import type { QueueProducer } from '@gleaner/queues';
import type { Family, RecordEndings, ReplicaAcks, RequestRecord, Stores } from '@gleaner/store';
import { endedWithin, recordAfterWait, type IdempotentSubmit } from './idempotency.js';

export interface SubmitInput<P extends object> {
  family: Family;
  requestId: string;
  accountId: string;
  input: Record<string, unknown>;
  webhookUrl?: string;
  producer: QueueProducer<P, unknown>;
  payload: P;
  windowMs: number;
  credits?: number;
  /** With an Idempotency-Key, the record is created only if the key names no live request. */
  idempotency?: IdempotentSubmit;
  /** The job's id when it is not the request id (a crawl's first slice). */
  jobId?: string;
}

export interface SubmitOutcome {
  /** The request answered: the new one, or the one the Idempotency-Key already named. */
  requestId: string;
  /** Its record once ended inside the window; null: answer 202. */
  record: RequestRecord | null;
  /** The key already named a request (started by a submit that raced this one). */
  replayed: boolean;
  /** That request's fingerprint differs: the key was reused with another body. */
  reusedWithOtherBody?: boolean;
}

/**
 * Submit = write the durable record, enqueue with job id = request id, then wait for the record
 * to end (RecordEndings) for at most the window. The record comes back when it ended in time;
 * null means the caller should answer 202 (the status endpoint and the webhook are the main
 * path; this wait is a convenience).
 *
 * The record and the job are sent together, not one after the other's answer: the producer adds
 * on the records' own connection (see the gateway's service), and Redis runs one connection's
 * commands in the order they were sent, so no worker can take the job before its record exists.
 * With an Idempotency-Key the job waits for the claim's answer instead: only a submit that
 * created the record may add its job (a second submit with the key answers the first's request).
 */
export async function submitAndWait<P extends object>(
  stores: Pick<Stores, 'records' | 'usage' | 'idempotencyKeys'>,
  deps: { recordEndings: RecordEndings; replicaAcks: ReplicaAcks | null },
  s: SubmitInput<P>,
): Promise<SubmitOutcome> {
  const { records, usage } = stores;
  const endings = deps.recordEndings;
  // Waiting from before the job exists: the notice of its end is not kept for latecomers.
  const waiting = s.windowMs > 0 ? endings.wait(s.family, s.requestId, s.windowMs) : null;
  const newRecord = {
    id: s.requestId,
    family: s.family,
    accountId: s.accountId,
    input: s.input,
    webhook: s.webhookUrl ? { url: s.webhookUrl, status: 'pending' as const, attempts: 0 } : undefined,
  };
  let created: Promise<unknown>;
  if (s.idempotency) {
    const claimed = await stores.idempotencyKeys.createClaimed(newRecord, s.idempotency.key, s.idempotency.fingerprint).catch((err: unknown) => {
      waiting?.cancel();
      throw err;
    });
    if (!claimed.created) {
      waiting?.cancel();
      const { requestId, fingerprint } = claimed.claim;
      if (fingerprint !== s.idempotency.fingerprint) return { requestId, record: null, replayed: true, reusedWithOtherBody: true };
      return { requestId, record: await endedWithin(records, endings, s.family, requestId, s.windowMs), replayed: true };
    }
    created = Promise.resolve(claimed.record);
  } else {
    created = records.create(newRecord);
  }
  const added = s.producer.add(s.payload, s.jobId ?? s.requestId);
  const [record, queued] = await Promise.allSettled([created, added]);
  if (record.status === 'rejected') {
    waiting?.cancel();
    // Not recorded means not accepted; a job added all the same finds no record and is dropped.
    throw record.reason;
  }
  if (queued.status === 'rejected') {
    waiting?.cancel();
    // Not queued means not accepted: remove the record so no request sits "received" forever,
    // and the Idempotency-Key claimed for it with it.
    await records.delete(s.family, s.requestId).catch(() => undefined);
    if (s.idempotency) await stores.idempotencyKeys.release(s.family, s.accountId, s.idempotency.key, s.requestId).catch(() => undefined);
    throw queued.reason;
  }
  // Counted while the job runs, not before: the caller's answer never waits on this write.
  const counted = usage.countRequest(s.accountId, s.family, s.credits ?? 0, s.requestId).catch(() => undefined);
  // Accepted once a replica holds the record and the job too (Sentinel, Cluster: ReplicaAcks).
  const replicated = deps.replicaAcks ? await deps.replicaAcks.wait().catch(() => 0) : 1;
  let ended = await recordAfterWait(records, waiting, s.family, s.requestId);
  if (!ended && replicated < 1) ended = await submittedAgainIfLost(records, s, newRecord);
  await counted;
  return { requestId: s.requestId, record: ended, replayed: false };
}

/**
 * A request no replica confirmed, answered 202: if a failover lost its record meanwhile, it is
 * recorded and queued again (same id: a job that survived is not added twice), so that the 202
 * names a request that exists. Null either way: the request runs, the caller polls.
 */
async function submittedAgainIfLost<P extends object>(
  records: Stores['records'],
  s: SubmitInput<P>,
  newRecord: Parameters<Stores['records']['create']>[0],
): Promise<RequestRecord | null> {
  try {
    const current = await records.get(s.family, s.requestId);
    if (current) return null;
    await records.create(newRecord);
    await s.producer.add(s.payload, s.requestId);
  } catch {
    // Redis is unreachable now: nothing more can be done than the 202.
  }
  return null;
}
