import Joi from 'joi';
import { defineQueue } from './contract.js';
import { shortRetention } from './retention.js';

/** An uploaded document waiting in the document store (packages/object-store) for the worker. */
export interface ParseUpload {
  /** Its object key in the store. */
  key: string;
  /** The file name the client gave, for logs. */
  name: string;
  bytes: number;
}

/** Document parser (`/documents`) jobs: a document to download (`url`) or one uploaded (`upload`), never both. */
export interface ParseJob {
  requestId: string;
  accountId: string;
  url?: string;
  /** A reference to the stored upload, not its bytes (jobs live in Redis). */
  upload?: ParseUpload;
  declaredType: string;
  output: 'plain' | 'markdown';
  webhook?: string;
}

export const parseQueue = defineQueue<ParseJob, { status: 'completed' | 'failed' }>({
  name: 'parse',
  schema: Joi.object<ParseJob>({
    requestId: Joi.string().required(),
    accountId: Joi.string().required(),
    url: Joi.string(),
    upload: Joi.object<ParseUpload>({ key: Joi.string().required(), name: Joi.string().allow('').required(), bytes: Joi.number().integer().min(0).required() }),
    declaredType: Joi.string().required(),
    output: Joi.string().valid('plain', 'markdown').required(),
    webhook: Joi.string(),
  }).xor('url', 'upload'),
  jobOptions: { attempts: 3, backoff: { type: 'exponential', delay: 2_000 }, ...shortRetention },
});
