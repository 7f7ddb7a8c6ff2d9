import type { Job } from 'bullmq';
import { fetchPage, type FetchedPage } from '@gleaner/safe-fetch';
import type { PageExtraction } from '@gleaner/html-extract';
import type { ScrapeV1Job } from '@gleaner/queues';
import type { ScrapeV1Result } from '@gleaner/record-views';
import { JobFailure, runRecordedJob } from '@gleaner/worker-runtime';
import { TaskTimeoutError, ThreadTaskError } from '@gleaner/platform';
import type { ExtractTask } from '../extract-thread.js';
import type { ScrapeProcessorDeps } from './deps.js';
import { v1FetchFailure } from './fetch-failures.js';
import { runLlm } from './llm.js';

/** SPEC: v1 reads pages up to 5 MB and does not run JavaScript. */
export const SCRAPE_V1_MAX_BYTES = 5 * 1024 * 1024;

async function inThread<T>(deps: ScrapeProcessorDeps, task: ExtractTask): Promise<T> {
  try {
    return await deps.extractPool.run<ExtractTask, T>(task, task.budgetMs + 1_000);
  } catch (err) {
    if (err instanceof TaskTimeoutError) {
      throw new JobFailure(task.task === 'select' ? '400' : '500', task.task === 'select' ? `selector evaluation exceeded its ${Math.round(task.budgetMs / 1000)} s budget` : 'content extraction exceeded its time budget', false);
    }
    if (err instanceof ThreadTaskError && err.remoteName === 'SelectorError') throw new JobFailure('400', err.message, false);
    throw new JobFailure('500', `processing failed: ${(err as Error).message}`, false);
  }
}

/** v1: fetch (5 MB), then the selector (basic) or the language model (LLM mode). */
export function createScrapeV1Processor(deps: ScrapeProcessorDeps) {
  const budgetMs = deps.config.SCRAPER_EXTRACT_BUDGET_MS;
  return (payload: ScrapeV1Job, job: Job) =>
    runRecordedJob('scrape-v1', job, payload.requestId, deps.jobs, async () => {
      let page: FetchedPage;
      try {
        page = await fetchPage(payload.url, { maxBytes: SCRAPE_V1_MAX_BYTES, allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS });
      } catch (err) {
        throw v1FetchFailure(err);
      }
      if (!payload.useLlm) {
        const selected = await inThread<{ html: string; text: string }>(deps, { task: 'select', html: page.body, url: page.finalUrl, selector: payload.selector, budgetMs });
        const result: ScrapeV1Result = { scraped_content: { html: selected.html, text: selected.text } };
        return { result };
      }
      const extracted = await inThread<PageExtraction>(deps, { task: 'page', html: page.body, url: page.finalUrl, markdown: true, budgetMs });
      const run = await runLlm(
        deps,
        {
          accountId: payload.accountId,
          prompt: payload.prompt ?? '',
          page: { url: page.finalUrl, title: String(extracted.meta.title ?? ''), description: String(extracted.meta.description ?? ''), markdown: extracted.markdown ?? extracted.text },
        },
        '422',
      );
      const result: ScrapeV1Result = { llm_json_structure: run.output };
      return { result, extra: { usage: run.usage } };
    });
}
