import { createLogger } from '@gleaner/platform';
import { parseQueue, QueueProducer, scrapeQueue, scrapeV1Queue, webhookQueue } from '@gleaner/queues';
import { createStores } from '@gleaner/store';
import { JobFailure, runRecordedJob, WorkerRegistry, type RecordedJobContext } from '@gleaner/worker-runtime';
import { testConnection, testRedis } from './redis.js';

/**
 * Test-only processors for plumbing tests: they run the real record lifecycle (runRecordedJob)
 * but the "work" is scripted by the URL: `…/sleep/<ms>` completes after ms, `…/fail` fails.
 * Nothing here ships as a feature.
 */
function scripted(url: string): Promise<void> {
  const sleep = /\/sleep\/(\d+)/.exec(url);
  if (/\/fail\b/.test(url)) return Promise.reject(new JobFailure('E008', 'scripted failure', false));
  return new Promise((resolve) => setTimeout(resolve, sleep ? Number(sleep[1]) : 0));
}

export async function startScriptedWorkers(prefix: string): Promise<{ close(): Promise<void> }> {
  const logger = createLogger('scripted-worker', 'error');
  const redis = testRedis();
  const connection = testConnection(prefix);
  const stores = createStores(redis, prefix, 'test-secret-0123456789abcdef');
  const webhooks = new QueueProducer(webhookQueue, connection);
  const ctx: RecordedJobContext = { records: stores.records, subscriptions: stores.subscriptions, webhooks, logger, includeTraces: false, unexpectedError: (e) => ({ code: 'E008', message: e.message }) };
  const registry = new WorkerRegistry(connection, logger);
  registry.register(scrapeQueue, (p, job) => runRecordedJob('scrape', job, p.requestId, ctx, async () => {
    await scripted(p.url);
    return { result: { text: `scripted text for ${p.url}`, meta: { title: 'Scripted', description: '' }, links: [], images: [], ...(p.outputType === 'markdown' ? { markdown: '# Scripted' } : {}) } };
  }), { concurrency: 4 });
  registry.register(scrapeV1Queue, (p, job) => runRecordedJob('scrape-v1', job, p.requestId, ctx, async () => {
    await scripted(p.url);
    return { result: { scraped_content: { html: '<p>scripted</p>', text: 'scripted' } } };
  }), { concurrency: 4 });
  registry.register(parseQueue, (p, job) => runRecordedJob('parse', job, p.requestId, ctx, async () => {
    await scripted(p.url ?? p.upload?.key ?? '');
    return { result: { data: 'scripted document', type: p.declaredType, pages: 1 } };
  }), { concurrency: 4 });
  await registry.waitUntilReady();
  return {
    async close() {
      await registry.close();
      await webhooks.close();
      redis.disconnect();
    },
  };
}
