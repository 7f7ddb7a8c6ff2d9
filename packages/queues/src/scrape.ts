import Joi from 'joi';
import { defineQueue } from './contract.js';
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
}

export const scrapeQueue = defineQueue<ScrapeJob, { status: 'completed' | 'failed' }>({
  name: 'scrape',
  schema: Joi.object<ScrapeJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    outputType: Joi.string().valid('plaintext', 'markdown').required(),
    useLlm: Joi.boolean().required(),
    prompt: Joi.string(),
    llmKeyId: Joi.string(),
    schema: Joi.object().unknown(true),
    webhook: Joi.string(),
  }),
  jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
