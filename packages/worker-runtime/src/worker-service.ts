import { announce, shutdownInOrder, startHealthServer, type createRedis, type Logger, type ShutdownStep } from '@gleaner/platform';
import type { WorkerRegistry } from './registry.js';

export interface RunningService {
  /** Readiness: its workers run and its Redis connection is up (what `/readyz` answers). */
  isReady(): boolean;
  stop(): Promise<void>;
}

export interface WorkerServiceParts {
  /** Service name, as in the log lines and the `ready` announcement (`scraper-worker`). */
  name: string;
  /** Every queue the service consumes, already registered. */
  registry: WorkerRegistry;
  /** The service's own Redis connection: part of readiness, closed last. */
  redis: ReturnType<typeof createRedis>;
  config: { HEALTH_PORT: number; SHUTDOWN_DEADLINE_MS: number };
  logger: Logger;
  /** What the jobs used (threads, browsers, producers), closed in this order once the workers are. */
  resources?: ShutdownStep[];
}

/**
 * The end of every worker service's boot: wait until its BullMQ workers consume, report queue
 * depths on /metrics, serve /healthz, /readyz and /metrics on HEALTH_PORT (0: none), announce
 * `<name> ready, consuming <queues>`, and return the ordered shutdown.
 */
export async function serveWorkerService(parts: WorkerServiceParts): Promise<RunningService> {
  const { name, registry, redis, config, logger } = parts;
  await registry.waitUntilReady();
  registry.reportQueueDepths();
  const isReady = () => registry.isRunning() && redis.status === 'ready';
  const health = config.HEALTH_PORT ? await startHealthServer(config.HEALTH_PORT, isReady) : null;
  announce(name, `${name} ready, consuming ${registry.queueNames.join(', ')}`);
  return {
    isReady,
    stop: () =>
      shutdownInOrder(
        [
          // Workers first: while they drain their running jobs, /readyz answers 503 and /metrics still answers.
          { name: 'workers', run: () => registry.close() },
          { name: 'health', run: () => health?.close() },
          ...(parts.resources ?? []),
          { name: 'redis', run: () => redis.quit().catch(() => redis.disconnect()) },
        ],
        config.SHUTDOWN_DEADLINE_MS,
        logger,
      ),
  };
}
