import { Queue } from 'bullmq';
import { QUEUE_BACKLOG_STATES, type RedisClient } from '@gleaner/platform';
import { botQueue } from './bot.js';
import type { QueueContract } from './contract.js';
import type { QueueConnection } from './factory.js';
import { parseQueue } from './parse.js';
import { renderQueue } from './render.js';
import { scrapeV1Queue } from './scrape-v1.js';
import { scrapeQueue } from './scrape.js';
import { webhookQueue } from './webhook.js';

/** The queues each worker service consumes: an autoscaler sizes a service by their backlog. */
export const SERVICE_QUEUES = {
  'scraper-worker': [scrapeQueue, scrapeV1Queue],
  'parser-worker': [parseQueue],
  'browser-worker': [renderQueue],
  'webhook-dispatcher': [webhookQueue],
  'bot-connector': [botQueue],
} as const;

export type WorkerService = keyof typeof SERVICE_QUEUES;

export interface Backlogs {
  /** Unfinished jobs per queue (QUEUE_BACKLOG_STATES). */
  queues: Record<string, number>;
  /** The same summed over the queues each worker service consumes. */
  services: Record<WorkerService, number>;
}

/**
 * Reads every queue's backlog from Redis (the same answer from any gateway replica), for
 * `/metrics/backlog` and `gleaner_queue_backlog`. On the caller's client: its queues own nothing.
 */
export class QueueBacklogs {
  private readonly queues: Queue[];

  constructor(client: RedisClient, connection: Pick<QueueConnection, 'prefix'>) {
    const contracts = [...new Set<QueueContract<object, unknown>>(Object.values(SERVICE_QUEUES).flat() as QueueContract<object, unknown>[])];
    // Read only (skipMetasUpdate): a Queue otherwise writes its options into the queue's meta,
    // and BullMQ's defaults (10,000 events) would replace the producer's (the bot queue's 1,000).
    this.queues = contracts.map((contract) => {
      const queue = new Queue(contract.name, { connection: client, prefix: connection.prefix, skipMetasUpdate: true });
      queue.on('error', () => undefined);
      return queue;
    });
  }

  async read(): Promise<Backlogs> {
    const queues: Record<string, number> = {};
    for (const queue of this.queues) {
      const counts = await queue.getJobCounts(...QUEUE_BACKLOG_STATES);
      queues[queue.name] = Object.values(counts).reduce((sum, n) => sum + n, 0);
    }
    const services = Object.fromEntries(Object.entries(SERVICE_QUEUES).map(([service, contracts]) => [service, contracts.reduce((sum, c) => sum + (queues[c.name] ?? 0), 0)])) as Record<WorkerService, number>;
    return { queues, services };
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close().catch(() => undefined)));
  }
}
