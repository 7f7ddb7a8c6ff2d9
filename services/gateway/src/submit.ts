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
 */
export async function submitAndWait<P extends object>(
  records: RequestRecordStore,
  usage: UsageCounters,
  s: SubmitInput<P>,
): Promise<RequestRecord | null> {
  await records.create({
    id: s.requestId,
    family: s.family,
    accountId: s.accountId,
    input: s.input,
    webhook: s.webhookUrl ? { url: s.webhookUrl, status: 'pending', attempts: 0 } : undefined,
  });
  let job;
  try {
    job = await s.producer.add(s.payload, s.requestId);
  } catch (err) {
    // Not queued means not accepted: remove the record so no request sits "received" forever.
    await records.delete(s.family, s.requestId).catch(() => undefined);
    throw err;
  }
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
