import type { Job } from 'bullmq';
import { fetchPage, secondsText, type FetchedPage } from '@gleaner/safe-fetch';
import type { PageExtraction } from '@gleaner/html-extract';
import type { ScrapeJob } from '@gleaner/queues';
import { scrapeImmediateBody, type ScrapeRecord, type ScrapeResult } from '@gleaner/record-views';
import { JobFailure, runRecordedJob } from '@gleaner/worker-runtime';
import type { ExtractTask } from '../extract-thread.js';
import type { ScrapeProcessorDeps } from './deps.js';
import { overBudget } from './extraction-budget.js';
import { scrapeFetchFailure } from './fetch-failures.js';
import { runLlm } from './llm.js';
import { decideRendering } from '../render-decision.js';
import { renderInBrowser } from './render-in-browser.js';

/** SPEC: the current scraper reads pages up to 10 MB (after decompression). */
export const SCRAPE_MAX_BYTES = 10 * 1024 * 1024;

/** `accountId`: the extraction counts against the account's share of the threads. */
async function extract(deps: ScrapeProcessorDeps, page: FetchedPage, markdown: boolean, accountId: string): Promise<PageExtraction> {
  if (page.kind === 'text') {
    return { title: '', text: page.body, ...(markdown ? { markdown: page.body } : {}), meta: { title: '', description: '' }, links: [], images: [], contentSource: 'fallback' };
  }
  const budgetMs = deps.config.SCRAPER_EXTRACT_BUDGET_MS;
  try {
    return await deps.extractPool.run<ExtractTask, PageExtraction>({ task: 'page', html: page.body, url: page.finalUrl, markdown, budgetMs }, budgetMs + 1_000, undefined, undefined, accountId);
  } catch (err) {
    if (overBudget(err)) throw new JobFailure('E008', `content extraction exceeded its ${secondsText(budgetMs)} budget`, false);
    throw new JobFailure('E008', `content extraction failed: ${(err as Error).message}`, false);
  }
}

interface ObtainedPage {
  page: FetchedPage;
  rendered: boolean;
  /** `auto` only: why rendering was given up and the static page kept ("E008: …"). */
  renderError?: string;
}

/**
 * The page as `render_js` asks: 'never' fetches it statically, 'always' has the browser-worker
 * render it, 'auto' fetches it statically and renders it when it looks client-rendered (or a wait
 * was asked for). In 'auto' a rendering that fails (E008: no browser-worker, over budget, crashes
 * past the retries) keeps the static page rather than fail a request that asked for no browser.
 */
async function obtainPage(deps: ScrapeProcessorDeps, payload: ScrapeJob): Promise<ObtainedPage> {
  const timeoutMs = payload.timeoutMs ?? deps.config.SCRAPER_FETCH_TIMEOUT_MS;
  const mode = payload.renderJs ?? 'never';
  if (mode === 'always') return { page: await renderInBrowser(deps, payload, timeoutMs), rendered: true };
  let page: FetchedPage;
  try {
    page = await fetchPage(payload.url, { maxBytes: SCRAPE_MAX_BYTES, allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS, deadlineMs: timeoutMs });
  } catch (err) {
    throw scrapeFetchFailure(err);
  }
  if (mode === 'never' || page.kind !== 'html') return { page, rendered: false };
  const asked = payload.waitForSelector !== undefined || payload.waitForMs !== undefined;
  const decision = asked ? { render: true, reason: 'a wait was asked for' } : decideRendering(page.body, page.finalUrl);
  if (!decision.render) return { page, rendered: false };
  deps.logger.debug('rendering a client-rendered page', { requestId: payload.requestId, reason: decision.reason });
  try {
    return { page: await renderInBrowser(deps, { ...payload, url: page.finalUrl }, timeoutMs), rendered: true };
  } catch (err) {
    if (!(err instanceof JobFailure) || err.code !== 'E008') throw err;
    deps.logger.warn('rendering failed, the static page is kept', { requestId: payload.requestId, error: err.message });
    return { page, rendered: false, renderError: `${err.code}: ${err.message}` };
  }
}

/** fetch (or render) → extract (in a thread) → optional LLM → record, cache, webhook. */
export function createScrapeProcessor(deps: ScrapeProcessorDeps) {
  return (payload: ScrapeJob, job: Job) =>
    runRecordedJob('scrape', job, payload.requestId, deps.jobs, async () => {
      const { page, rendered, renderError } = await obtainPage(deps, payload);
      const needMarkdown = payload.outputType === 'markdown' || payload.useLlm;
      const extracted = await extract(deps, page, needMarkdown, payload.accountId);
      for (const { step, error } of extracted.stepFailures ?? []) {
        deps.logger.warn('a content extraction step failed on the page; the candidate before it was kept', { requestId: payload.requestId, step, error });
      }
      const result: ScrapeResult = {
        text: extracted.text,
        ...(needMarkdown ? { markdown: extracted.markdown ?? '' } : {}),
        meta: {
          ...extracted.meta,
          status_code: page.statusCode,
          content_type: page.contentType,
          final_url: page.finalUrl,
          rendered,
          ...(renderError ? { render_error: renderError } : {}),
        },
        links: extracted.links,
        images: extracted.images,
      };
      let usage: ScrapeRecord['usage'];
      if (payload.useLlm) {
        const run = await runLlm(
          deps,
          {
            accountId: payload.accountId,
            llmKeyId: payload.llmKeyId,
            prompt: payload.prompt ?? '',
            schema: payload.schema,
            page: { url: page.finalUrl, title: String(extracted.meta.title ?? ''), description: String(extracted.meta.description ?? ''), markdown: extracted.markdown ?? extracted.text },
          },
          'E008',
        );
        result.llm_output = run.output;
        usage = run.usage;
      }
      return { result, extra: usage ? { usage } : {} };
    }, async (record) => {
      // The cache keeps the answer as the original request gave it (rendered once, here), marked cached.
      const answer = { ...scrapeImmediateBody(record as unknown as ScrapeRecord), cached: true };
      await deps.cache.put(record.accountId, payload.url, { requestId: record.id, json: JSON.stringify(answer) });
    });
}
