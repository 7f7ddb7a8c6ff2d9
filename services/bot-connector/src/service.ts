import { createLogger, createRedis, deploymentRedis, type Logger } from '@gleaner/platform';
import { botQueue } from '@gleaner/queues';
import { Sealer, WindowBudget } from '@gleaner/store';
import { serveWorkerService, WorkerRegistry, type RunningService } from '@gleaner/worker-runtime';
import { createBotProcessor } from './bot-processor.js';
import type { BotConnectorConfig } from './config.js';
import { PlatformRequestQuota } from './request-quota.js';

/** Re-exported: callers of start…() name the handle they get back. */
export type { RunningService } from '@gleaner/worker-runtime';

export async function startBotConnector(config: BotConnectorConfig, logger: Logger = createLogger('bot-connector', config.LOG_LEVEL)): Promise<RunningService> {
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'worker', 'bot-connector', logger);
  const quota = new PlatformRequestQuota(new WindowBudget(redis, connection.prefix, config.BOT_PLATFORM_REQUEST_WINDOW_SECONDS), config.BOT_PLATFORM_REQUESTS_PER_TOKEN);
  const process = createBotProcessor({ config, tokenSealer: new Sealer(config.GLEANER_SECRET, 'bot-token'), quota, logger });
  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  // The processor needs the job's lock token to delay a rate-limited job.
  registry.register(botQueue, (payload, job) => process(payload, job, job.token), { concurrency: config.BOT_CONCURRENCY });
  return serveWorkerService({ name: 'bot-connector', registry, redis, config, logger });
}
