import { TEST_REDIS_URL, testRedisSettings } from './redis.js';

/**
 * Environment for services under test: the suite's Redis (a Cluster or Sentinel group under
 * GLEANER_TEST_REDIS_MODE), isolated Redis prefix, private networks allowed (local
 * stand-ins). Tests submit as one account, and many count on a worker's whole concurrency, so the
 * per-account cap is lifted here; tests of fair sharing (tenant-isolation.test.ts) delete the entry
 * to run with the default.
 */
export function serviceEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return withRedisServer({
    ...testRedisSettings(),
    GLEANER_REDIS_PREFIX: prefix,
    NODE_ENV: 'test',
    GLEANER_SECRET: 'test-secret-0123456789abcdef',
    GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ACCOUNT_MAX_CONCURRENT_JOBS: '1000',
    ...extra,
  }, extra.REDIS_URL === TEST_REDIS_URL ? undefined : extra.REDIS_URL);
}

/**
 * `extra` may be a whole serviceEnv (GatewayHarness.start takes one): its REDIS_URL, the suite's
 * own, keeps the suite's Cluster or Sentinel settings; only another server's replaces them.
 *
 * `env` on the one Redis server at `url` (an outage test's own), whatever the suite's Redis is:
 * under GLEANER_TEST_REDIS_MODE a Sentinel or Cluster setting would win over REDIS_URL.
 */
export function withRedisServer(env: Record<string, string>, url: string | undefined): Record<string, string> {
  if (url === undefined) return env;
  const { REDIS_SENTINELS, REDIS_SENTINEL_MASTER, REDIS_CLUSTER_NODES, ...rest } = env;
  return { ...rest, REDIS_URL: url };
}
