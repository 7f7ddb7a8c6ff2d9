import Joi from 'joi';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface ScraperWorkerConfig extends CommonConfig {
  SCRAPER_CONCURRENCY: number;
  /** Threads for HTML extraction; jsdom work is synchronous and CPU bound. */
  SCRAPER_EXTRACT_THREADS: number;
  /** Time budget of one page extraction inside its thread. */
  SCRAPER_EXTRACT_BUDGET_MS: number;
  /**
   * v1: time budget of the selector alone, after the page is parsed. Shorter than the 20 s
   * window, so a pathological selector answers 400 while the caller still waits.
   */
  SCRAPER_V1_SELECTOR_BUDGET_MS: number;
  ANTHROPIC_BASE_URL?: string;
  /** Time for one LLM extraction as a whole: attempts, retry waits and the repair round. */
  LLM_DEADLINE_MS: number;
  /** Input budget of one LLM extraction in tokens (about 4 characters each); longer pages are trimmed. */
  LLM_INPUT_TOKEN_BUDGET: number;
  /** Running jobs one account may hold over every process of this service; unset: half of the concurrency, 0: no cap. */
  ACCOUNT_MAX_CONCURRENT_JOBS?: number;
  /** Default budget of fetching a page, static or rendered (one deadline: connect, redirects, body). */
  SCRAPER_FETCH_TIMEOUT_MS: number;
  /** How long a page to render may wait for a free browser-worker before the request gives up on it. */
  SCRAPER_RENDER_QUEUE_WAIT_MS: number;
  /** Crawl and batch slices one process runs at once (each fetches up to its max_concurrency pages). */
  CRAWL_CONCURRENCY: number;
  /** How long one slice of a crawl runs before the next slice takes over (see crawlQueue). */
  CRAWL_SLICE_MS: number;
  /** A crawl still running this long after it started ends, completed, saying so. */
  CRAWL_MAX_DURATION_MS: number;
  /** Longest gap between two requests to one host the adaptive delay grows to. */
  CRAWL_MAX_DELAY_MS: number;
  /** Retries of a page answered 429, 503, another 5xx, or not at all (network errors). */
  CRAWL_PAGE_RETRIES: number;
  /** Pages a `crawl.page` webhook notice carries at most (it is sent once that many are listed, or at the slice's end). */
  CRAWL_WEBHOOK_BATCH_PAGES: number;
  /** Named in the crawler's User-Agent (`+<url>`): where a site owner learns who crawls them. */
  CRAWLER_INFO_URL?: string;
  /** Link pages a map reads beyond its start page. */
  MAP_MAX_PAGES: number;
  /** A map's whole budget: sitemaps, start page and link pages. */
  MAP_DEADLINE_MS: number;
  HEALTH_PORT: number;
}

export const scraperWorkerEnvSchema = Joi.object({
  ...commonEnvSchema,
  SCRAPER_CONCURRENCY: Joi.number().integer().min(1).max(256).default(8),
  SCRAPER_EXTRACT_THREADS: Joi.number().integer().min(1).max(64).default(2),
  SCRAPER_EXTRACT_BUDGET_MS: Joi.number().integer().min(100).default(30_000),
  SCRAPER_V1_SELECTOR_BUDGET_MS: Joi.number().integer().min(100).default(10_000),
  ANTHROPIC_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  LLM_DEADLINE_MS: Joi.number().integer().min(1_000).default(120_000),
  LLM_INPUT_TOKEN_BUDGET: Joi.number().integer().min(1_000).default(30_000),
  ACCOUNT_MAX_CONCURRENT_JOBS: Joi.number().integer().min(0).max(10_000),
  SCRAPER_FETCH_TIMEOUT_MS: Joi.number().integer().min(1_000).max(120_000).default(30_000),
  SCRAPER_RENDER_QUEUE_WAIT_MS: Joi.number().integer().min(1_000).default(60_000),
  CRAWL_CONCURRENCY: Joi.number().integer().min(1).max(64).default(2),
  CRAWL_SLICE_MS: Joi.number().integer().min(1_000).default(30_000),
  CRAWL_MAX_DURATION_MS: Joi.number().integer().min(10_000).default(6 * 3600_000),
  CRAWL_MAX_DELAY_MS: Joi.number().integer().min(100).default(60_000),
  CRAWL_PAGE_RETRIES: Joi.number().integer().min(0).max(10).default(2),
  CRAWL_WEBHOOK_BATCH_PAGES: Joi.number().integer().min(1).max(1_000).default(10),
  CRAWLER_INFO_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  MAP_MAX_PAGES: Joi.number().integer().min(0).max(1_000).default(25),
  MAP_DEADLINE_MS: Joi.number().integer().min(1_000).default(15_000),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadScraperWorkerConfig(env: NodeJS.ProcessEnv = process.env): ScraperWorkerConfig {
  return loadConfig<ScraperWorkerConfig>(scraperWorkerEnvSchema, env);
}
