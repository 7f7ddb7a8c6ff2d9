import Joi from 'joi';
import { defineQueue } from './contract.js';
import { RENDER_TIMEOUT_MAX_MS, RENDER_WAIT_FOR_MAX_MS } from './render.js';
import { shortRetention } from './retention.js';

/** Current scraper (`/web-scrapper/`) jobs. The result itself is written to the request record. */
export interface ScrapeJob {
  requestId: string;
  accountId: string;
  url: string;
  outputType: 'plaintext' | 'markdown';
  useLlm: boolean;
  prompt?: string;
  llmKeyId?: string;
  schema?: Record<string, unknown>;
  webhook?: string;
  /**
   * `render_js`: 'auto' renders pages that look client-rendered (or when a wait is asked for),
   * 'always' renders every page, 'never' reads the static HTML only.
   */
  renderJs?: 'auto' | 'always' | 'never';
  /** `timeout`: budget of fetching the page, static or rendered, ms (default SCRAPER_FETCH_TIMEOUT_MS). */
  timeoutMs?: number;
  /** `wait_for`, ms. */
  waitForMs?: number;
  /** `wait_for_selector`. */
  waitForSelector?: string;
}

/** How each page is read: the options a crawl or batch applies to every page, as a scrape does to its one. */
export type PageOptions = Pick<ScrapeJob, 'outputType' | 'useLlm' | 'prompt' | 'llmKeyId' | 'schema' | 'renderJs' | 'timeoutMs' | 'waitForMs' | 'waitForSelector'>;

/** The payload keys of PageOptions (shared by the scrape, crawl and batch contracts). */
export const pageOptionsKeys = {
  outputType: Joi.string().valid('plaintext', 'markdown').required(),
  useLlm: Joi.boolean().required(),
  prompt: Joi.string(),
  llmKeyId: Joi.string(),
  schema: Joi.object().unknown(true),
  // Jobs queued before rendering existed are done as they were asked: statically.
  renderJs: Joi.string().valid('auto', 'always', 'never').default('never'),
  timeoutMs: Joi.number().integer().min(1).max(RENDER_TIMEOUT_MAX_MS),
  waitForMs: Joi.number().integer().min(0).max(RENDER_WAIT_FOR_MAX_MS),
  waitForSelector: Joi.string().max(1_000),
};

export const scrapeQueue = defineQueue<ScrapeJob, { status: 'completed' | 'failed' }>({
  name: 'scrape',
  schema: Joi.object<ScrapeJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    webhook: Joi.string(),
    ...pageOptionsKeys,
  }),
  jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
