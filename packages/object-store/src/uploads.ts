import { requestIdTime } from '@gleaner/platform';
import type { DocumentStore } from './document-store.js';

/** Uploads live under this prefix, one object per parse request. */
export const UPLOAD_PREFIX = 'uploads/';

/** SPEC "Limits": parser stored files are deleted after 7 days (as long as the parse record lives). */
export const UPLOAD_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/**
 * An upload without a record is left this long before the sweep deletes it: the gateway stores the
 * file before it creates the record (it must know the file is good first). A request body is read
 * within the gateway's 2-minute request timeout, so an hour is far past any upload in progress.
 */
export const ORPHAN_GRACE_MS = 3600 * 1000;

export const uploadKey = (requestId: string): string => `${UPLOAD_PREFIX}${requestId}`;

/** The request an upload key belongs to (unfinished local writes carry a `.<random>.part` suffix). */
export function requestIdOfUpload(key: string): string | null {
  if (!key.startsWith(UPLOAD_PREFIX)) return null;
  return key.slice(UPLOAD_PREFIX.length).split('.')[0] || null;
}

export interface SweepOutcome {
  deleted: string[];
  kept: number;
}

/**
 * Deletes uploads older than 7 days, and uploads whose request record is gone (it expired, or the
 * request was never accepted) once they are past the grace period. The age is the request id's
 * time (UUIDv7), else the object's own date. Run periodically by the parser worker.
 */
export async function sweepUploads(store: DocumentStore, recordExists: (requestId: string) => Promise<boolean>, now = Date.now()): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { deleted: [], kept: 0 };
  for await (const object of store.list(UPLOAD_PREFIX)) {
    const requestId = requestIdOfUpload(object.key);
    const created = (requestId ? requestIdTime(requestId) : null) ?? object.lastModified.getTime();
    const age = now - created;
    const expired = age > UPLOAD_LIFETIME_MS || (age > ORPHAN_GRACE_MS && !(requestId && (await recordExists(requestId))));
    if (!expired) {
      outcome.kept++;
      continue;
    }
    await store.delete(object.key);
    outcome.deleted.push(object.key);
  }
  return outcome;
}
