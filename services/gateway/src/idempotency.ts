import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { hasEnded, type Family, type RecordEndings, type RequestRecord, type RequestRecordStore, type IdempotencyKeys } from '@gleaner/store';
import { ApiError } from './errors/index.js';

/** The submit families that take an Idempotency-Key. */
type SubmitFamily = 'scraper' | 'v1' | 'parser';

/** An Idempotency-Key sent with a submit, and the digest of the body it came with. */
export interface IdempotentSubmit {
  key: string;
  fingerprint: string;
}

/** Set on an answer that replays the request an earlier submit with the same key started. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** Printable ASCII, as the IETF draft's examples and the common SDKs send (UUIDs, ULIDs, hashes). */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

const INVALID_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces';
const REUSED_KEY = 'this Idempotency-Key was already used with a different request body; send a new key for a new request';

/** The family's answer to a malformed key (400) and to a key reused with another body (422, as the IETF draft advises). */
const REFUSALS: Record<SubmitFamily, { invalid: () => ApiError; reused: () => ApiError }> = {
  scraper: { invalid: () => new ApiError('E001', INVALID_KEY), reused: () => new ApiError('E009', REUSED_KEY, { status: 422 }) },
  v1: { invalid: () => new ApiError('400', INVALID_KEY, { status: 400 }), reused: () => new ApiError('422', REUSED_KEY, { status: 422 }) },
  parser: { invalid: () => new ApiError('400-006', undefined, { details: [INVALID_KEY] }), reused: () => new ApiError('422-001', undefined, { details: [REUSED_KEY] }) },
};

/** JSON with object keys sorted at every level: `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The submit's Idempotency-Key, checked for form, with the digest of what it asks for (the JSON
 * body, or what stands for an upload: its fields and the file's digest); undefined without one.
 */
export function idempotentSubmitOf(req: Request, family: SubmitFamily, asked: unknown = req.body): IdempotentSubmit | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_FORM.test(key)) throw REFUSALS[family].invalid();
  return { key, fingerprint: createHash('sha256').update(canonicalJson(asked)).digest('hex') };
}

/** The refusal of a key already used with another body. */
export function reusedKeyError(family: SubmitFamily): ApiError {
  return REFUSALS[family].reused();
}

/**
 * The record of `id` once it has ended within `windowMs`, else null (answer 202). The wait is
 * subscribed before the record is read, so an end between the two is not missed.
 */
export async function endedWithin(records: RequestRecordStore, endings: RecordEndings, family: Family, id: string, windowMs: number): Promise<RequestRecord | null> {
  const waiting = windowMs > 0 ? endings.wait(family, id, windowMs) : null;
  try {
    const current = await records.get(family, id);
    if (!current || hasEnded(current.status)) {
      waiting?.cancel();
      return current;
    }
  } catch {
    // Read again below, once the window has passed.
  }
  return recordAfterWait(records, waiting, family, id);
}

/** What a submit answers after its wait: the ended record, else a read of it in case the notice was lost, else null. */
export async function recordAfterWait(records: RequestRecordStore, waiting: { ended: Promise<RequestRecord | null> } | null, family: Family, id: string): Promise<RequestRecord | null> {
  const ended = waiting ? await waiting.ended : null;
  if (ended) return ended;
  try {
    // No notice inside the window: it may have ended while the notices could not reach us.
    const current = await records.get(family, id);
    return current && hasEnded(current.status) ? current : null;
  } catch {
    // The job is accepted; if the store is unreachable right now the caller polls later.
    return null;
  }
}

export interface Replay {
  requestId: string;
  /** The request's record as first read: its input answers for it. */
  record: RequestRecord;
  /** Its record once ended within the window, else null (answer 202). */
  ended: RequestRecord | null;
}

/**
 * A submit whose key already names a live request of this account: that request, answered as
 * its submit would be (after waiting out the window if it still runs). A body other than the
 * one the key came with is refused. Null when the key is new, or its request's record is gone
 * (expired): the key is free again.
 */
export async function replayOf(
  deps: { records: RequestRecordStore; idempotencyKeys: IdempotencyKeys; endings: RecordEndings; windowMs: number },
  family: Family,
  apiFamily: SubmitFamily,
  accountId: string,
  submit: IdempotentSubmit,
): Promise<Replay | null> {
  const claim = await deps.idempotencyKeys.find(family, accountId, submit.key);
  if (!claim) return null;
  const record = await deps.records.get(family, claim.requestId);
  if (!record || record.accountId !== accountId) return null;
  if (claim.fingerprint !== submit.fingerprint) throw reusedKeyError(apiFamily);
  const ended = hasEnded(record.status) ? record : await endedWithin(deps.records, deps.endings, family, claim.requestId, deps.windowMs);
  return { requestId: claim.requestId, record, ended };
}
