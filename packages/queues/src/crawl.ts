import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';
import { pageOptionsKeys, type PageOptions } from './scrape.js';

/** `sitemap` of a crawl or map: read the site's sitemaps too (default), not at all, or only them. */
export type SitemapMode = 'include' | 'skip' | 'only';

/** Which URLs a crawl or map follows (see @gleaner/site-crawl's CrawlScope). */
export interface SiteScopeOptions {
  includePaths?: string[];
  excludePaths?: string[];
  allowSubdomains: boolean;
  allowExternal: boolean;
  sitemap: SitemapMode;
  ignoreQuery: boolean;
}

/** A crawl's or batch's options, as the gateway checked them. */
export interface CrawlOptions extends SiteScopeOptions {
  /** Crawls: the start URL. Batches have their URLs in the frontier from the start. */
  startUrl?: string;
  /** Pages fetched at most (crawls); batches fetch every URL they were given. */
  limit?: number;
  maxDepth?: number;
  /** Requests to one host at once. */
  maxConcurrency: number;
  page: PageOptions;
  webhook?: string;
}

/**
 * One slice of a crawl or batch: a job runs the crawl for a while (CRAWL_SLICE_MS), then queues
 * the next slice (job id `<request id>-s<n>`) and ends, so that no job holds a worker for hours,
 * crawls of other accounts take turns, and a crash or deploy costs one slice. The frontier,
 * counters and results live in Redis (CrawlState); the payload carries the options.
 */
export interface CrawlJob {
  requestId: string;
  accountId: string;
  family: 'crawl' | 'batch';
  slice: number;
  options: CrawlOptions;
}

const scopeKeys = {
  includePaths: Joi.array().items(Joi.string().max(500)).max(100),
  excludePaths: Joi.array().items(Joi.string().max(500)).max(100),
  allowSubdomains: Joi.boolean().default(false),
  allowExternal: Joi.boolean().default(false),
  sitemap: Joi.string().valid('include', 'skip', 'only').default('include'),
  ignoreQuery: Joi.boolean().default(false),
};

export const siteScopeSchema = Joi.object<SiteScopeOptions>(scopeKeys);

/** The job id of a crawl's slice `n`. */
export function crawlSliceJobId(requestId: string, slice: number): string {
  return `${requestId}-s${slice}`;
}

export const crawlQueue = defineQueue<CrawlJob, { status: 'continued' | 'ended' | 'superseded' }>({
  name: 'crawl',
  schema: Joi.object<CrawlJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    family: Joi.string().valid('crawl', 'batch').required(),
    slice: Joi.number().integer().min(0).required(),
    options: Joi.object({
      ...scopeKeys,
      startUrl: Joi.string(),
      limit: Joi.number().integer().min(1),
      maxDepth: Joi.number().integer().min(0),
      maxConcurrency: Joi.number().integer().min(1).max(100).required(),
      page: Joi.object(pageOptionsKeys).required(),
      webhook: Joi.string(),
    }).required(),
  }),
  // Attempts are per slice: a slice that throws (Redis away too long, a bug) runs again from the
  // crawl's state; one that fails three times ends the crawl as failed.
  jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
