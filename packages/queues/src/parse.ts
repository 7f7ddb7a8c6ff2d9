import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';

/** Document parser (`/documents`) jobs. */
export interface ParseJob {
  requestId: string;
  accountId: string;
  url: string;
  declaredType: string;
  output: 'plain' | 'markdown';
  webhook?: string;
}

export const parseQueue = defineQueue<ParseJob, { status: 'completed' | 'failed' }>({
  name: 'parse',
  schema: Joi.object<ParseJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string().required(),
    declaredType: Joi.string().required(),
    output: Joi.string().valid('plain', 'markdown').required(),
    webhook: Joi.string(),
  }),
  jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
