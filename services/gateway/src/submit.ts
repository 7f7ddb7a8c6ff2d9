import type { QueueProducer } from '@gleaner/queues';
import type { Family, RequestRecord, RequestRecordStore, UsageCounters } from '@gleaner/store';

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
 * Submit = write the durable record, enqueue with job id = request id, then wait on queue events
 * for at most the window. Returns the finished record, or null when the caller should answer 202
 * (the status endpoint and the webhook are the main path; this wait is a convenience).
 *
 * The record and the job are sent together, not one after the other's answer: the producer adds
 * on the records' own connection (see the gateway's service), and Redis runs one connection's
 * commands in the order they were sent, so no worker can take the job before its record exists.
 */
export async function submitAndWait<P extends object>(
  records: RequestRecordStore,
  usage: UsageCounters,
  s: SubmitInput<P>,
): Promise<RequestRecord | null> {
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
    // Not recorded means not accepted; a job added all the same finds no record and is dropped.
    throw record.reason;
  }
  if (queued.status === 'rejected') {
    // Not queued means not accepted: remove the record so no request sits "received" forever.
    await records.delete(s.family, s.requestId).catch(() => undefined);
    throw queued.reason;
  }
  const job = queued.value;
  // Counted while the job runs, not before: the caller's answer never waits on this write.
  const counted = usage.countRequest(s.accountId, s.family, s.credits ?? 0).catch(() => undefined);
  if (s.windowMs > 0) await s.producer.waitForFinish(job, s.windowMs);
  await counted;
  try {
    const record = await records.get(s.family, s.requestId);
    return record && (record.status === 'completed' || record.status === 'failed') ? record : null;
  } catch {
    // The job is accepted; if the store is unreachable right now the caller polls later.
    return null;
  }
}
