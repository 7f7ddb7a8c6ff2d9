import { fetchPage, secondsText, type FetchedPage, type TransferOptions } from '@gleaner/safe-fetch';
import type { PageExtraction } from '@gleaner/html-extract';
import type { PageOptions, ScrapeJob } from '@gleaner/queues';
import type { ScrapeResult } from '@gleaner/record-views';
import type { LlmUsage } from '@gleaner/store';
import { JobFailure } from '@gleaner/worker-runtime';
import type { ExtractTask } from '../extract-thread.js';
import type { ScrapeProcessorDeps } from './deps.js';
import { overBudget } from './extraction-budget.js';
import { scrapeFetchFailure } from './fetch-failures.js';
import { runLlm } from './llm.js';
import { decideRendering } from '../render-decision.js';
import { renderInBrowser } from './render-in-browser.js';

/** SPEC: the current scraper reads pages up to 10 MB (after decompression). */
export const SCRAPE_MAX_BYTES = 10 * 1024 * 1024;

/** One page to read with a scrape's options: a scrape's own, or one page of a crawl or batch. */
export interface PageRequest {
  /** Names the page's render job and rendered HTML (a scrape's request id; a crawl page's own id). */
  requestId: string;
  accountId: string;
  url: string;
  options: PageOptions;
  /** How a crawl fetches: its user agent, its redirect rules, its cancellation. */
  fetch?: Pick<TransferOptions, 'userAgent' | 'beforeRedirect' | 'signal'>;
}

export interface ReadPage {
  page: FetchedPage;
  result: ScrapeResult;
  /** LLM runs only. */
  usage?: LlmUsage;
  /** How long fetching (or rendering) the page took, ms: what a crawl's throttle learns from. */
  fetchMs: number;
}

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

/** What the render queue's job is made of. */
function renderJobOf(request: PageRequest): ScrapeJob {
  return { requestId: request.requestId, accountId: request.accountId, url: request.url, ...request.options };
}

/**
 * The page as `render_js` asks: 'never' fetches it statically, 'always' has the browser-worker
 * render it, 'auto' fetches it statically and renders it when it looks client-rendered (or a wait
 * was asked for). In 'auto' a rendering that fails (E008: no browser-worker, over budget, crashes
 * past the retries) keeps the static page rather than fail a request that asked for no browser.
 */
async function obtainPage(deps: ScrapeProcessorDeps, request: PageRequest): Promise<ObtainedPage> {
  const { options } = request;
  const timeoutMs = options.timeoutMs ?? deps.config.SCRAPER_FETCH_TIMEOUT_MS;
  const mode = options.renderJs ?? 'never';
  if (mode === 'always') return { page: await renderInBrowser(deps, renderJobOf(request), timeoutMs), rendered: true };
  let page: FetchedPage;
  try {
    page = await fetchPage(request.url, { maxBytes: SCRAPE_MAX_BYTES, allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS, deadlineMs: timeoutMs, ...request.fetch });
  } catch (err) {
    throw scrapeFetchFailure(err);
  }
  if (mode === 'never' || page.kind !== 'html') return { page, rendered: false };
  const asked = options.waitForSelector !== undefined || options.waitForMs !== undefined;
  const decision = asked ? { render: true, reason: 'a wait was asked for' } : decideRendering(page.body, page.finalUrl);
  if (!decision.render) return { page, rendered: false };
  deps.logger.debug('rendering a client-rendered page', { requestId: request.requestId, reason: decision.reason });
  try {
    return { page: await renderInBrowser(deps, { ...renderJobOf(request), url: page.finalUrl }, timeoutMs), rendered: true };
  } catch (err) {
    if (!(err instanceof JobFailure) || err.code !== 'E008') throw err;
    deps.logger.warn('rendering failed, the static page is kept', { requestId: request.requestId, error: err.message });
    return { page, rendered: false, renderError: `${err.code}: ${err.message}` };
  }
}

/** fetch (or render) → extract (in a thread) → optional LLM: a scrape's result. Throws JobFailure. */
export async function readPage(deps: ScrapeProcessorDeps, request: PageRequest): Promise<ReadPage> {
  const { options } = request;
  const started = Date.now();
  const { page, rendered, renderError } = await obtainPage(deps, request);
  const fetchMs = Date.now() - started;
  const needMarkdown = options.outputType === 'markdown' || options.useLlm;
  const extracted = await extract(deps, page, needMarkdown, request.accountId);
  for (const { step, error } of extracted.stepFailures ?? []) {
    deps.logger.warn('a content extraction step failed on the page; the candidate before it was kept', { requestId: request.requestId, step, error });
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
  if (!options.useLlm) return { page, result, fetchMs };
  const run = await runLlm(
    deps,
    {
      accountId: request.accountId,
      llmKeyId: options.llmKeyId,
      prompt: options.prompt ?? '',
      schema: options.schema,
      page: { url: page.finalUrl, title: String(extracted.meta.title ?? ''), description: String(extracted.meta.description ?? ''), markdown: extracted.markdown ?? extracted.text },
    },
    'E008',
  );
  result.llm_output = run.output;
  return { page, result, usage: run.usage, fetchMs };
}
