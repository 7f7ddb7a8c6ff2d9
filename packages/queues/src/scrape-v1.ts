import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';

/** Deprecated v1 scraper (`/v1/llm-web-scrapper`) jobs. */
export interface ScrapeV1Job {
  requestId: string;
  accountId: string;
  url: string;
  selector?: string;
  useLlm: boolean;
  prompt?: string;
  webhook?: string;
}

export const scrapeV1Queue = defineQueue<ScrapeV1Job, { status: 'completed' | 'failed' }>({
  name: 'scrape-v1',
  schema: Joi.object<ScrapeV1Job>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    selector: Joi.string(),
    useLlm: Joi.boolean().required(),
    prompt: Joi.string(),
    webhook: Joi.string(),
  }),
  jobOptions: { attempts: 2, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
