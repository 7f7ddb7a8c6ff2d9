import type { JobsOptions } from 'bullmq';

/**
 * Job hashes are not the result store (request records are), so finished jobs are kept only
 * briefly for debugging and to let the gateway's wait see the final event.
 */
export const shortRetention: Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'> = {
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
};
