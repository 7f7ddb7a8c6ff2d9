import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';

/**
 * A page to render in Chromium for a current-scraper request (`render_js`), produced by the
 * scraper-worker and consumed by the browser-worker. The rendered HTML goes to the store's
 * RenderedPageStore under the request id; the job's result says where the browser ended up.
 */
export interface RenderJob {
  requestId: string;
  accountId: string;
  url: string;
  /** Budget of the whole rendering (navigation, waits, scrolling, reading the DOM), ms. */
  timeoutMs: number;
  /** Extra time to wait once the page has loaded and settled, ms (`wait_for`). */
  waitForMs?: number;
  /** CSS selector the page must contain before it is read (`wait_for_selector`). */
  waitForSelector?: string;
}

export interface RenderResult {
  /** URL of the document after redirects and client-side navigation. */
  finalUrl: string;
  /** HTTP status of the main document's response. */
  statusCode: number;
  contentType: string;
  /** Size of the rendered HTML (UTF-8 bytes). */
  bytes: number;
}

/** `timeout` of the scraper API: at most 120 s for a page, static or rendered. */
export const RENDER_TIMEOUT_MAX_MS = 120_000;
/** `wait_for` of the scraper API: at most 30 s. */
export const RENDER_WAIT_FOR_MAX_MS = 30_000;

export const renderQueue = defineQueue<RenderJob, RenderResult>({
  name: 'render',
  schema: Joi.object<RenderJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    timeoutMs: Joi.number().integer().min(1).max(RENDER_TIMEOUT_MAX_MS).required(),
    waitForMs: Joi.number().integer().min(0).max(RENDER_WAIT_FOR_MAX_MS),
    waitForSelector: Joi.string().max(1_000),
  }),
  // Attempts are for Chromium crashing (or its worker dying) mid-render: the page is rendered again
  // in a fresh browser. A page that fails by itself (over budget, HTTP error) fails at once
  // (UnrecoverableError), so a slow page never costs three budgets.
  jobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 500 }, ...shortRetention },
  // Results are small (no HTML), but a waiting scraper reads them from the event stream.
  eventsMaxLen: 10_000,
});
