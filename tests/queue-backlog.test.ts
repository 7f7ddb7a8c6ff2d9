import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { newRequestId } from '@gleaner/platform';
import { parseQueue, QueueProducer, scrapeQueue } from '@gleaner/queues';
import { GatewayHarness } from './support/gateway.js';
import { deleteKeysWithPrefix, testConnection, testPrefix } from './support/redis.js';

/**
 * The backlog autoscalers read (KEDA, deploy/helm): `/metrics/backlog` and `gleaner_queue_backlog`
 * count every unfinished job, not only BullMQ's `wait` list: a delayed job (a retry's backoff, an
 * account's deferred job) and a prioritised one are elsewhere in Redis. No worker runs here, so
 * what is added stays.
 */
const prefix = testPrefix('backlog');
let h: GatewayHarness;
let scrape: QueueProducer<object, unknown>;
let parse: QueueProducer<object, unknown>;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix);
  scrape = new QueueProducer(scrapeQueue, testConnection(prefix)) as unknown as QueueProducer<object, unknown>;
  parse = new QueueProducer(parseQueue, testConnection(prefix)) as unknown as QueueProducer<object, unknown>;
});

afterAll(async () => {
  await Promise.all([scrape?.close(), parse?.close()]);
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

it('counts waiting, delayed and prioritised jobs per queue and per worker service', async () => {
  await scrape.queue.add('scrape', { n: 1 }, { jobId: newRequestId() });
  await scrape.queue.add('scrape', { n: 2 }, { jobId: newRequestId(), delay: 60_000 });
  await scrape.queue.add('scrape', { n: 3 }, { jobId: newRequestId(), priority: 5 });
  await parse.queue.add('parse', { n: 4 }, { jobId: newRequestId(), delay: 60_000 });
  const backlog = await fetch(`${h.url}/metrics/backlog`).then((r) => r.json());
  expect(backlog).toEqual({
    queues: { scrape: 3, 'scrape-v1': 0, parse: 1, render: 0, webhook: 0, bot: 0 },
    services: { 'scraper-worker': 3, 'parser-worker': 1, 'browser-worker': 0, 'webhook-dispatcher': 0, 'bot-connector': 0 },
  });
  const metrics = await fetch(`${h.url}/metrics`).then((r) => r.text());
  expect(metrics).toMatch(/^gleaner_queue_backlog\{queue="scrape"\} 3$/m);
  expect(metrics).toMatch(/^gleaner_queue_jobs\{queue="scrape",state="prioritized"\} 1$/m);
});
