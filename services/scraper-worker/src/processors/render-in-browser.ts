import { secondsText, type FetchedPage } from '@gleaner/safe-fetch';
import { renderQueue, type RenderJob, type ScrapeJob } from '@gleaner/queues';
import { JobFailure } from '@gleaner/worker-runtime';
import type { ScrapeProcessorDeps } from './deps.js';

/** Margin per render attempt beyond its budget: launching Chromium, storing the HTML. */
const ATTEMPT_MARGIN_MS = 5_000;

/** "E008: message" (the browser-worker's failures) as the family's failure; anything else is E008. */
function renderFailure(reason: string | undefined): JobFailure {
  const m = /^(E\d{3}): ([\s\S]*)$/.exec(reason ?? '');
  if (m) return new JobFailure(m[1], m[2], false);
  return new JobFailure('E008', `rendering failed: ${reason || 'unknown error'}`, false);
}

/**
 * Has the browser-worker render the page (render queue, job id = request id) and waits for it:
 * one wait, with a ttl that covers the queue, every attempt BullMQ makes after a Chromium crash,
 * and their budgets. The HTML comes through the store, taken once; a job run again (after a
 * stall) that finds the render done and its HTML taken has it rendered again.
 * Throws JobFailure: none is retried here (the render queue already retried crashes).
 */
export async function renderInBrowser(deps: ScrapeProcessorDeps, payload: ScrapeJob, timeoutMs: number): Promise<FetchedPage> {
  const job: RenderJob = {
    requestId: payload.requestId,
    accountId: payload.accountId,
    url: payload.url,
    timeoutMs,
    ...(payload.waitForMs ? { waitForMs: payload.waitForMs } : {}),
    ...(payload.waitForSelector ? { waitForSelector: payload.waitForSelector } : {}),
  };
  // A queue nobody consumes would hold the request for the whole wait: say so at once.
  if ((await deps.renders.queue.getWorkersCount()) === 0) throw new JobFailure('E008', `rendering is not available: ${deps.noBrowserHere ?? 'no browser-worker is running'}`, false);
  const attempts = renderQueue.jobOptions.attempts ?? 1;
  const ttlMs = deps.config.SCRAPER_RENDER_QUEUE_WAIT_MS + attempts * (timeoutMs + ATTEMPT_MARGIN_MS);
  for (let round = 0; round < 2; round++) {
    const added = await deps.renders.add(job, payload.requestId);
    const outcome = await deps.renders.waitForFinish(added, ttlMs);
    if (outcome.outcome === 'timeout') {
      await deps.renders.queue.remove(payload.requestId).catch(() => undefined);
      throw new JobFailure('E008', `no browser-worker rendered the page within ${secondsText(ttlMs)}`, false);
    }
    if (outcome.outcome === 'failed') throw renderFailure(outcome.reason);
    const html = await deps.renderedPages.take(payload.requestId);
    if (html !== null) {
      const { finalUrl, statusCode, contentType, bytes } = outcome.value;
      return { finalUrl, statusCode, contentType, charset: 'utf-8', body: html, bytes, kind: 'html', headers: {}, redirects: [] };
    }
    await deps.renders.queue.remove(payload.requestId).catch(() => undefined);
  }
  throw new JobFailure('E008', 'the rendered page was lost on its way from the browser-worker', true);
}
