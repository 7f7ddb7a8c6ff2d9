import { UnrecoverableError, type Job } from 'bullmq';
import { browserPages, type Logger } from '@gleaner/platform';
import type { RenderJob, RenderResult } from '@gleaner/queues';
import type { RenderedPageStore } from '@gleaner/store';
import type { FilteringProxy, ProxyRefusal } from '../filtering-proxy.js';
import { BrowserCrashedError, type ManagedBrowser } from '../managed-browser.js';
import { RenderFailure, renderPage, type RenderSettings } from '../render-page.js';

export interface RenderProcessorDeps {
  browser: ManagedBrowser;
  /** The filtering proxy every page context connects through. */
  pageProxy: FilteringProxy;
  renderedPages: RenderedPageStore;
  settings: RenderSettings;
  logger: Logger;
}

/**
 * One render job: a fresh context on the process's Chromium, the page rendered within the job's
 * budget, its HTML stored for the scraper-worker (RenderedPageStore), where it ended up returned.
 * A page that fails by itself ends the job ("CODE: message", read by the scraper); Chromium
 * crashing under it is an ordinary error, so BullMQ renders it again in a fresh browser.
 */
export function createRenderProcessor(deps: RenderProcessorDeps) {
  return async (payload: RenderJob, job: Job): Promise<RenderResult> => {
    // Refusals of every page rendering meanwhile: only used to tell whether this page's own host
    // was refused, which another page's refusal of the same host:port would have been too.
    const refusals: ProxyRefusal[] = [];
    const onRefused = (r: ProxyRefusal) => refusals.push(r);
    deps.pageProxy.on('refused', onRefused);
    const log = deps.logger.child({ requestId: payload.requestId, jobId: job.id, attempt: job.attemptsMade + 1 });
    try {
      const page = await deps.browser.withContext(
        {
          proxy: { server: deps.pageProxy.url },
          serviceWorkers: 'block',
          acceptDownloads: false,
          viewport: { width: 1280, height: 900 },
          locale: 'en-US',
        },
        (context) => renderPage(context, payload, deps.settings, refusals),
      );
      await deps.renderedPages.put(payload.requestId, page.html);
      browserPages.inc({ outcome: 'rendered' });
      log.debug('page rendered', { url: page.finalUrl, bytes: page.html.length, stepMs: page.stepMs });
      return { finalUrl: page.finalUrl, statusCode: page.statusCode, contentType: page.contentType, bytes: Buffer.byteLength(page.html) };
    } catch (err) {
      if (err instanceof RenderFailure) {
        browserPages.inc({ outcome: 'failed' });
        log.info('page not rendered', { code: err.code, error: err.message });
        throw new UnrecoverableError(`${err.code}: ${err.message}`);
      }
      if (err instanceof BrowserCrashedError) {
        browserPages.inc({ outcome: 'crashed' });
        log.warn('Chromium crashed under the page; it will be rendered again', { error: err.message });
      }
      throw err;
    } finally {
      deps.pageProxy.off('refused', onRefused);
    }
  };
}
