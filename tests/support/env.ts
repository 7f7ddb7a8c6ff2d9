import { TEST_REDIS_URL } from './redis.js';

/**
 * Environment for services under test: isolated Redis prefix, private networks allowed (local
 * stand-ins). Tests submit as one account, and many count on a worker's whole concurrency, so the
 * per-account cap is lifted here; tests of fair sharing (tenant-isolation.test.ts) delete the entry
 * to run with the default.
 */
export function serviceEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: TEST_REDIS_URL,
    GLEANER_REDIS_PREFIX: prefix,
    NODE_ENV: 'test',
    GLEANER_SECRET: 'test-secret-0123456789abcdef',
    GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ACCOUNT_MAX_CONCURRENT_JOBS: '1000',
    ...extra,
  };
}
