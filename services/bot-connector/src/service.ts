import { announce, createLogger, createRedis, shutdownInOrder, startHealthServer, type Logger } from '@gleaner/platform';
import { botQueue } from '@gleaner/queues';
import { Sealer, WindowBudget } from '@gleaner/store';
import { WorkerRegistry } from '@gleaner/worker-runtime';
import { createBotProcessor } from './bot-processor.js';
import type { BotConnectorConfig } from './config.js';
import { PlatformRequestQuota } from './request-quota.js';

export interface RunningService {
  /** Readiness: its workers run and its Redis connection is up (what `/readyz` answers). */
  isReady(): boolean;
  stop(): Promise<void>;
}

export async function startBotConnector(config: BotConnectorConfig, logger: Logger = createLogger('bot-connector', config.LOG_LEVEL)): Promise<RunningService> {
  const redis = createRedis(config.REDIS_URL, 'worker', 'bot-connector', logger);
  const connection = { redisUrl: config.REDIS_URL, prefix: config.GLEANER_REDIS_PREFIX };
  const quota = new PlatformRequestQuota(new WindowBudget(redis, config.GLEANER_REDIS_PREFIX, config.BOT_PLATFORM_REQUEST_WINDOW_SECONDS), config.BOT_PLATFORM_REQUESTS_PER_TOKEN);
  const process = createBotProcessor({ config, tokenSealer: new Sealer(config.GLEANER_SECRET, 'bot-token'), quota, logger });
  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  // The processor needs the job's lock token to delay a rate-limited job.
  registry.register(botQueue, (payload, job) => process(payload, job, job.token), { concurrency: config.BOT_CONCURRENCY });
  await registry.waitUntilReady();
  registry.reportQueueDepths();
  const isReady = () => registry.isRunning() && redis.status === 'ready';
  const health = config.HEALTH_PORT ? await startHealthServer(config.HEALTH_PORT, isReady) : null;
  announce('bot-connector', `bot-connector ready, consuming ${registry.queueNames.join(', ')}`);
  return {
    isReady,
    stop: () =>
      shutdownInOrder(
        [
          // Workers first: while they drain their running jobs, /readyz answers 503 and /metrics still answers.
          { name: 'workers', run: () => registry.close() },
          { name: 'health', run: () => health?.close() },
          { name: 'redis', run: () => redis.quit().catch(() => redis.disconnect()) },
        ],
        config.SHUTDOWN_DEADLINE_MS,
        logger,
      ),
  };
}
