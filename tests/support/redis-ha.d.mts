/** Types of redis-ha.mjs (plain JavaScript: jest's globalSetup loads it without a transform). */
export interface RedisProcess {
  readonly port: number;
  /** Null while the server is killed. */
  readonly pid: number | null;
  start(): Promise<void>;
  kill(): void;
  stop(): Promise<void>;
}
export interface TestRedisCluster {
  nodes: RedisProcess[];
  nodesSetting: string;
  masterOf(key: string): Promise<RedisProcess>;
  stop(): Promise<void>;
}
export interface TestSentinelGroup {
  servers: RedisProcess[];
  sentinels: RedisProcess[];
  masterName: string;
  sentinelsSetting: string;
  master(): Promise<RedisProcess | undefined>;
  stop(): Promise<void>;
}
export const TEST_SENTINEL_MASTER: string;
export function startRedisCluster(options?: { nodeTimeoutMs?: number }): Promise<TestRedisCluster>;
export function startSentinelGroup(options?: { replicas?: number; downAfterMs?: number }): Promise<TestSentinelGroup>;
export function startSuiteRedisHa(mode: 'cluster' | 'sentinel'): Promise<{ env: Record<string, string>; stop: () => Promise<void> }>;
