import type { Job } from 'bullmq';
import { fetchPage, secondsText, type FetchedPage } from '@gleaner/safe-fetch';
import type { PageExtraction } from '@gleaner/html-extract';
import type { ScrapeV1Job } from '@gleaner/queues';
import type { ScrapeV1Result } from '@gleaner/record-views';
import { JobFailure, runRecordedJob } from '@gleaner/worker-runtime';
import { ThreadTaskError } from '@gleaner/platform';
import type { ExtractTask } from '../extract-thread.js';
import type { ScrapeProcessorDeps } from './deps.js';
import { v1FetchFailure } from './fetch-failures.js';
import { overBudget } from './extraction-budget.js';
import { runLlm } from './llm.js';

/** SPEC: v1 reads pages up to 5 MB and does not run JavaScript. */
export const SCRAPE_V1_MAX_BYTES = 5 * 1024 * 1024;

function threadFailure(err: unknown): JobFailure {
  if (err instanceof JobFailure) return err;
  if (overBudget(err)) return new JobFailure('500', 'content extraction exceeded its time budget', false);
  if (err instanceof ThreadTaskError && err.remoteName === 'SelectorError') return new JobFailure('400', err.message, false);
  return new JobFailure('500', `processing failed: ${(err as Error).message}`, false);
}

/**
 * The selector task, with its two phases timed apart (the thread reports each as it enters it):
 * parsing the page is our work, and overrunning SCRAPER_EXTRACT_BUDGET_MS is a processing
 * failure (500); the selector is the caller's, and overrunning SCRAPER_V1_SELECTOR_BUDGET_MS is
 * a bad request (400). Either overrun terminates the thread.
 */
async function selectInThread(deps: ScrapeProcessorDeps, task: Extract<ExtractTask, { task: 'select' }>, accountId: string): Promise<{ html: string; text: string }> {
  const parseMs = deps.config.SCRAPER_EXTRACT_BUDGET_MS;
  const selectorMs = deps.config.SCRAPER_V1_SELECTOR_BUDGET_MS;
  const overrun = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, failure: JobFailure) => {
    clearTimeout(timer);
    timer = setTimeout(() => overrun.abort(failure), ms);
  };
  const onProgress = (phase: unknown) => {
    if (phase === 'parsing') arm(parseMs, new JobFailure('500', `parsing the page exceeded its ${secondsText(parseMs)} budget`, false));
    else if (phase === 'selecting') arm(selectorMs, new JobFailure('400', `selector evaluation exceeded its ${secondsText(selectorMs)} budget`, false));
  };
  try {
    // The pool's own budget only backs up the phase timers (a thread that never reports).
    return await deps.extractPool.run<ExtractTask, { html: string; text: string }>(task, parseMs + selectorMs + 5_000, onProgress, overrun.signal, accountId);
  } catch (err) {
    throw threadFailure(err);
  } finally {
    clearTimeout(timer);
  }
}

async function extractInThread(deps: ScrapeProcessorDeps, task: Extract<ExtractTask, { task: 'page' }>, accountId: string): Promise<PageExtraction> {
  try {
    return await deps.extractPool.run<ExtractTask, PageExtraction>(task, task.budgetMs + 1_000, undefined, undefined, accountId);
  } catch (err) {
    throw threadFailure(err);
  }
}

/** v1: fetch (5 MB), then the selector (basic) or the language model (LLM mode). */
export function createScrapeV1Processor(deps: ScrapeProcessorDeps) {
  const budgetMs = deps.config.SCRAPER_EXTRACT_BUDGET_MS;
  return (payload: ScrapeV1Job, job: Job) =>
    runRecordedJob('scrape-v1', job, payload.requestId, deps.jobs, async () => {
      let page: FetchedPage;
      try {
        page = await fetchPage(payload.url, { maxBytes: SCRAPE_V1_MAX_BYTES, allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS, deadlineMs: deps.config.SCRAPER_FETCH_TIMEOUT_MS });
      } catch (err) {
        throw v1FetchFailure(err);
      }
      if (!payload.useLlm) {
        const selected = await selectInThread(deps, { task: 'select', html: page.body, url: page.finalUrl, selector: payload.selector }, payload.accountId);
        const result: ScrapeV1Result = { scraped_content: { html: selected.html, text: selected.text } };
        return { result };
      }
      const extracted = await extractInThread(deps, { task: 'page', html: page.body, url: page.finalUrl, markdown: true, budgetMs }, payload.accountId);
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
