import type { QueueProducer } from '@gleaner/queues';
import { hasEnded, type Family, type RecordEndings, type RequestRecord, type RequestRecordStore, type UsageCounters } from '@gleaner/store';

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
}

/**
 * Submit = write the durable record, enqueue with job id = request id, then wait for the record
 * to end (RecordEndings) for at most the window. Returns the finished record, or null when the
 * caller should answer 202 (the status endpoint and the webhook are the main path; this wait is a
 * convenience).
 *
 * The record and the job are sent together, not one after the other's answer: the producer adds
 * on the records' own connection (see the gateway's service), and Redis runs one connection's
 * commands in the order they were sent, so no worker can take the job before its record exists.
 */
export async function submitAndWait<P extends object>(
  records: RequestRecordStore,
  usage: UsageCounters,
  endings: RecordEndings,
  s: SubmitInput<P>,
): Promise<RequestRecord | null> {
  // Waiting from before the job exists: the notice of its end is not kept for latecomers.
  const waiting = s.windowMs > 0 ? endings.wait(s.family, s.requestId, s.windowMs) : null;
  const created = records.create({
    id: s.requestId,
    family: s.family,
    accountId: s.accountId,
    input: s.input,
    webhook: s.webhookUrl ? { url: s.webhookUrl, status: 'pending', attempts: 0 } : undefined,
  });
  const added = s.producer.add(s.payload, s.requestId);
  const [record, queued] = await Promise.allSettled([created, added]);
  if (record.status === 'rejected') {
    waiting?.cancel();
    // Not recorded means not accepted; a job added all the same finds no record and is dropped.
    throw record.reason;
  }
  if (queued.status === 'rejected') {
    waiting?.cancel();
    // Not queued means not accepted: remove the record so no request sits "received" forever.
    await records.delete(s.family, s.requestId).catch(() => undefined);
    throw queued.reason;
  }
  // Counted while the job runs, not before: the caller's answer never waits on this write.
  const counted = usage.countRequest(s.accountId, s.family, s.credits ?? 0, s.requestId).catch(() => undefined);
  const ended = waiting ? await waiting.ended : null;
  await counted;
  if (ended) return ended;
  try {
    // No notice inside the window: it may have ended while the notices could not reach us.
    const current = await records.get(s.family, s.requestId);
    return current && hasEnded(current.status) ? current : null;
  } catch {
    // The job is accepted; if the store is unreachable right now the caller polls later.
    return null;
  }
}
