import { ThreadPool } from '@gleaner/platform';

/**
 * The threads parse jobs run in, one per concurrent job, each with its own OCR worker while a
 * document needs one. The benchmark measures the service's memory through this same pool.
 */
export function createParsePool(size: number): ThreadPool {
  return new ThreadPool({ entry: new URL('./parse-thread.ts', import.meta.url), size, resourceLimits: { maxOldGenerationSizeMb: 1536 } });
}
