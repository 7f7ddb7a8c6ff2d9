import { createHash } from 'node:crypto';
import { DelayedError, type Job } from 'bullmq';
import { createBotPlatformClient, runBotWebhook } from '@gleaner/bot-platform';
import type { Logger } from '@gleaner/platform';
import type { BotJob, BotJobResult } from '@gleaner/queues';
import type { RateLimiter, Sealer } from '@gleaner/store';
import type { BotConnectorConfig } from './config.js';

export interface BotProcessorDeps {
  config: BotConnectorConfig;
  tokenSealer: Sealer;
  rateLimiter: RateLimiter;
  logger: Logger;
}

/**
 * Runs one bot webhook call against the platform. Calls per token are kept within the
 * platform's limit by delaying the job (still inside the caller's deadline); a job whose caller
 * has already given up is skipped rather than sending a flow nobody is waiting for.
 */
export function createBotProcessor(deps: BotProcessorDeps) {
  return async (payload: BotJob, job: Job, token?: string): Promise<BotJobResult> => {
    const log = deps.logger.child({ requestId: payload.requestId });
    if (Date.now() > payload.deadlineMs) {
      log.warn('bot call skipped: the caller stopped waiting');
      return { httpStatus: 500, body: { error: 'The request timed out before it could be processed' } };
    }
    const platformToken = deps.tokenSealer.open(payload.sealedToken);
    const subject = `bot-token:${createHash('sha256').update(platformToken).digest('hex').slice(0, 32)}`;
    const decision = await deps.rateLimiter.consume(subject, deps.config.BOT_CALLS_PER_MINUTE_PER_TOKEN);
    if (!decision.allowed && token) {
      const until = Date.now() + decision.resetSeconds * 1000;
      if (until < payload.deadlineMs) {
        await job.moveToDelayed(until, token);
        throw new DelayedError();
      }
      return { httpStatus: 429, body: { error: 'Too many calls for this bot token; retry in a minute' } };
    }
    const client = createBotPlatformClient({ baseUrl: deps.config.BOT_PLATFORM_BASE_URL, token: platformToken, timeoutMs: deps.config.BOT_PLATFORM_TIMEOUT_MS });
    const outcome = await runBotWebhook({ phone_number: payload.phone, flow_ns: payload.flowNs, user_fields: payload.userFields }, client);
    log.info('bot call finished', { httpStatus: outcome.httpStatus });
    return { httpStatus: outcome.httpStatus, body: outcome.body as unknown as Record<string, unknown> };
  };
}
