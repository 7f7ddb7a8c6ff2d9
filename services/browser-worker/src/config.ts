import Joi from 'joi';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface BrowserWorkerConfig extends CommonConfig {
  /** Pages one browser-worker process renders at once (one Chromium, one context per page). */
  BROWSER_CONCURRENCY: number;
  /** Debian's `chromium` (a launcher script that execs /usr/lib/chromium/chromium). */
  CHROMIUM_PATH: string;
  /** Pages a Chromium renders before it is replaced by a fresh one. */
  BROWSER_RECYCLE_PAGES: number;
  /** Proportional memory (PSS) of Chromium's processes past which it is replaced after its current pages. */
  BROWSER_MEMORY_LIMIT_MB: number;
  /** A Chromium without pages for this long is closed (started again by the next job). */
  BROWSER_IDLE_MS: number;
  /** Playwright resource types never loaded (comma-separated); empty loads everything. */
  BROWSER_BLOCKED_RESOURCES: string[];
  /** Longest wait, after the page has loaded, for its scripts, timers and requests to go quiet. */
  BROWSER_SETTLE_MS: number;
  /** Viewport heights scrolled at most to bring in lazy content. */
  BROWSER_SCROLL_STEPS: number;
  /** Pages one account may have rendered at once over every process of this service; unset: half of the concurrency, 0: no cap. */
  ACCOUNT_MAX_CONCURRENT_JOBS?: number;
  HEALTH_PORT: number;
}

export const browserWorkerEnvSchema = Joi.object({
  ...commonEnvSchema,
  BROWSER_CONCURRENCY: Joi.number().integer().min(1).max(32).default(2),
  CHROMIUM_PATH: Joi.string().default('/usr/bin/chromium'),
  BROWSER_RECYCLE_PAGES: Joi.number().integer().min(1).default(200),
  BROWSER_MEMORY_LIMIT_MB: Joi.number().integer().min(100).default(1024),
  BROWSER_IDLE_MS: Joi.number().integer().min(1_000).default(60_000),
  BROWSER_BLOCKED_RESOURCES: Joi.array()
    .items(Joi.string().valid('image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'other'))
    .single()
    .default(['image', 'media', 'font']),
  BROWSER_SETTLE_MS: Joi.number().integer().min(0).max(60_000).default(4_000),
  BROWSER_SCROLL_STEPS: Joi.number().integer().min(0).max(200).default(20),
  ACCOUNT_MAX_CONCURRENT_JOBS: Joi.number().integer().min(0).max(10_000),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadBrowserWorkerConfig(env: NodeJS.ProcessEnv = process.env): BrowserWorkerConfig {
  // A comma-separated list in the environment; joi takes arrays.
  const blocked = env.BROWSER_BLOCKED_RESOURCES;
  const list = blocked === undefined ? undefined : blocked.split(',').map((s) => s.trim()).filter(Boolean);
  return loadConfig<BrowserWorkerConfig>(browserWorkerEnvSchema, { ...env, BROWSER_BLOCKED_RESOURCES: list as unknown as string });
}
