import Joi from 'joi';
import { defineQueue } from './contract.js';
import { siteScopeSchema, type SiteScopeOptions } from './crawl.js';
import { shortRetention } from './retention.js';

/** `POST /web-scrapper/map`: a site's URLs, without scraping their pages. The links go to the request record. */
export interface MapJob {
  requestId: string;
  accountId: string;
  url: string;
  /** Links returned at most. */
  limit: number;
  scope: SiteScopeOptions;
}

export const mapQueue = defineQueue<MapJob, { status: 'completed' | 'failed' }>({
  name: 'map',
  schema: Joi.object<MapJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    limit: Joi.number().integer().min(1).required(),
    scope: siteScopeSchema.required(),
  }),
  jobOptions: { attempts: 2, backoff: { type: 'fixed', delay: 1_000 }, ...shortRetention },
});
