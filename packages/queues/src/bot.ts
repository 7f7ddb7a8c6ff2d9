import Joi from 'joi';
import { defineQueue } from './contract.js';

/**
 * Bot webhook calls, awaited by the gateway. The platform token travels only encrypted
 * (`sealedToken`, AES-256-GCM under GLEANER_SECRET) and the job is deleted as soon as it ends,
 * so the token is never stored in clear and never kept.
 */
export interface BotJob {
  requestId: string;
  sealedToken: string;
  phone: string;
  flowNs: string;
  userFields: Record<string, string>;
  /** Epoch ms after which the caller has given up: the connector then skips the job. */
  deadlineMs: number;
}

export interface BotJobResult {
  httpStatus: number;
  body: Record<string, unknown>;
  /** With a 429: seconds until the call may be made again (the gateway's Retry-After). */
  retryAfterSeconds?: number;
}

export const botQueue = defineQueue<BotJob, BotJobResult>({
  name: 'bot',
  schema: Joi.object<BotJob>({
    requestId: Joi.string().required(),
    sealedToken: Joi.string().required(),
    phone: Joi.string().required(),
    flowNs: Joi.string().required(),
    userFields: Joi.object().pattern(Joi.string(), Joi.string()).default({}),
    deadlineMs: Joi.number().integer().required(),
  }),
  // One attempt: the connector retries lookups itself and must never repeat a flow send.
  jobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
  // Finished jobs are removed, but their results (user_ns, field outcomes) also sit in the queue's
  // event stream, which BullMQ keeps at 10,000 entries by default. About six events per call, so
  // this keeps the last ~150 calls: enough for a waiting gateway that falls behind in a burst.
  eventsMaxLen: 1_000,
});
