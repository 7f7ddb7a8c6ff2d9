import { randomUUID } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { sweepUploads, type DocumentStore } from '@gleaner/object-store';
import type { Logger } from '@gleaner/platform';
import { Keyspace, type RequestRecordStore } from '@gleaner/store';

export interface UploadSweepDeps {
  redis: Redis;
  prefix: string;
  documents: DocumentStore;
  records: RequestRecordStore;
  logger: Logger;
  intervalMs: number;
}

/**
 * Deletes stored uploads past their 7 days, or whose parse record is gone (sweepUploads), once an
 * interval. Every parser worker offers; the one that takes the interval's Redis key sweeps, so a
 * deployment lists its store once per interval however many workers it runs.
 */
export function startUploadSweep(deps: UploadSweepDeps): { stop(): Promise<void> } {
  const lockKey = new Keyspace(deps.prefix).uploadSweep();
  let running: Promise<void> = Promise.resolve();
  const sweepOnce = async () => {
    if ((await deps.redis.set(lockKey, randomUUID(), 'PX', deps.intervalMs, 'NX')) !== 'OK') return;
    const outcome = await sweepUploads(deps.documents, async (id) => (await deps.records.get('parse', id)) !== null);
    if (outcome.deleted.length) deps.logger.info('stored uploads deleted', { deleted: outcome.deleted.length, kept: outcome.kept });
  };
  const tick = () => {
    running = sweepOnce().catch((err: Error) => {
      deps.logger.warn('upload sweep failed; the next interval tries again', { error: err.message });
    });
  };
  // The first sweep soon after boot, so a deployment restarted often still sweeps.
  const first = setTimeout(tick, Math.min(deps.intervalMs, 60_000));
  const timer = setInterval(tick, deps.intervalMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
