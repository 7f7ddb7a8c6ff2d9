import type { Job } from 'bullmq';
import type { ScrapeJob } from '@gleaner/queues';
import { scrapeImmediateBody, type ScrapeRecord } from '@gleaner/record-views';
import { runRecordedJob } from '@gleaner/worker-runtime';
import type { ScrapeProcessorDeps } from './deps.js';
import { readPage } from './read-page.js';

/** fetch (or render) → extract (in a thread) → optional LLM → record, cache, webhook. */
export function createScrapeProcessor(deps: ScrapeProcessorDeps) {
  return (payload: ScrapeJob, job: Job) =>
    runRecordedJob('scrape', job, payload.requestId, deps.jobs, async () => {
      const { requestId, accountId, url, webhook: _webhook, ...options } = payload;
      const { result, usage } = await readPage(deps, { requestId, accountId, url, options });
      return { result, extra: usage ? { usage } : {} };
    }, async (record) => {
      // The cache keeps the answer as the original request gave it (rendered once, here), marked cached.
      const answer = { ...scrapeImmediateBody(record as unknown as ScrapeRecord), cached: true };
      await deps.cache.put(record.accountId, payload.url, { requestId: record.id, json: JSON.stringify(answer) });
    });
}
