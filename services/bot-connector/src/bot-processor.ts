import { DelayedError, type Job } from 'bullmq';
import { createBotPlatformClient, MIN_TIME_FOR_A_WRITE_MS, runBotWebhook } from '@gleaner/bot-platform';
import type { Logger } from '@gleaner/platform';
import type { BotJob, BotJobResult } from '@gleaner/queues';
import type { Sealer } from '@gleaner/store';
import type { BotConnectorConfig } from './config.js';
import type { PlatformRequestQuota } from './request-quota.js';

export interface BotProcessorDeps {
  config: BotConnectorConfig;
  tokenSealer: Sealer;
  quota: PlatformRequestQuota;
  logger: Logger;
}

/**
 * Time the answer needs to reach the waiting gateway (job completion, then its event through
 * Redis). The connector works to the caller's deadline less this, so the gateway relays the
 * connector's own answer instead of giving up just before it arrives.
 */
export const ANSWER_TRAVEL_MS = 300;

/**
 * Runs one bot webhook call against the platform, within the deadline of the caller waiting at
 * the gateway. Platform requests per token are kept within the platform's limit: a call that does
 * not fit in the current window waits for the next one if that starts early enough for the call
 * to run before the deadline (the job is delayed), and is answered 429 with Retry-After otherwise.
 */
export function createBotProcessor(deps: BotProcessorDeps) {
  return async (payload: BotJob, job: Job, lockToken?: string): Promise<BotJobResult> => {
    const log = deps.logger.child({ requestId: payload.requestId });
    const deadlineAt = payload.deadlineMs - ANSWER_TRAVEL_MS;
    if (Date.now() >= deadlineAt) {
      log.warn('bot call skipped: the caller stopped waiting');
      return { httpStatus: 500, body: { error: 'The request timed out before it could be processed' } };
    }
    const platformToken = deps.tokenSealer.open(payload.sealedToken);
    const quota = await deps.quota.reserve(platformToken, Object.keys(payload.userFields).length);
    if (!quota.granted) {
      const until = Date.now() + quota.retryAfterMs;
      if (lockToken && until + MIN_TIME_FOR_A_WRITE_MS < deadlineAt) {
        log.info('bot call delayed: the token has no platform requests left in this window', { delayMs: quota.retryAfterMs });
        await job.moveToDelayed(until, lockToken);
        throw new DelayedError();
      }
      const seconds = Math.ceil(quota.retryAfterMs / 1000);
      log.warn('bot call refused: the token has no platform requests left in this window', { retryAfterSeconds: seconds });
      return {
        httpStatus: 429,
        body: { error: `Too many bot platform requests for this token (at most ${deps.config.BOT_PLATFORM_REQUESTS_PER_TOKEN} per ${deps.config.BOT_PLATFORM_REQUEST_WINDOW_SECONDS} s); retry in ${seconds} s` },
        retryAfterSeconds: seconds,
      };
    }
    try {
      const client = createBotPlatformClient({
        baseUrl: deps.config.BOT_PLATFORM_BASE_URL,
        token: platformToken,
        timeoutMs: deps.config.BOT_PLATFORM_TIMEOUT_MS,
        deadlineAt,
        admission: quota.admission,
      });
      const outcome = await runBotWebhook({ phone_number: payload.phone, flow_ns: payload.flowNs, user_fields: payload.userFields }, client, { deadlineAt });
      log.info('bot call finished', { httpStatus: outcome.httpStatus });
      return { httpStatus: outcome.httpStatus, body: outcome.body as unknown as Record<string, unknown> };
    } finally {
      await quota.release().catch((e) => log.warn('could not give back unused platform requests', { error: (e as Error).message }));
    }
  };
}
