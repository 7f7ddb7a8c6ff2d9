import type { Router } from 'express';
import { newRequestId } from '@gleaner/platform';
import { normalizePhone, parseBotWebhookRequest } from '@gleaner/bot-platform';
import type { Sealer } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireBearerToken } from '../middleware/auth.js';
import { ctx, setRequestId } from '../middleware/context.js';
import { jsonObjectBody } from '../middleware/json-body.js';
import { bearerRateLimit } from '../middleware/rate-limit.js';
import { familyRouter } from './family-router.js';

/**
 * `/bot-webhook`: validated here, carried out by bot-connector through its queue and awaited for a
 * bounded time. Nothing is stored; the token travels sealed and the job is deleted when it ends.
 */
export function botWebhookRouter(deps: GatewayDeps, tokenSealer: Sealer): Router {
  const { stores, config, logger } = deps;
  return familyRouter('bot', logger, (router) => {
    router.use((_req, res, next) => {
      setRequestId(res, newRequestId());
      next();
    });
    router.use(requireBearerToken, bearerRateLimit(stores.rateLimiter, config.DEFAULT_RATE_LIMIT_PER_MINUTE), jsonObjectBody);

    router.post('/', async (req, res) => {
      const { requestId, bearerToken } = ctx(res);
      const parsed = parseBotWebhookRequest(req.body);
      if (!parsed.ok) throw new ApiError('400', `${parsed.error}: ${parsed.details.join('; ')}`, { status: 400, details: parsed.details });
      const { input } = parsed;
      const job = await deps.producers.bot.add(
        {
          requestId,
          sealedToken: tokenSealer.seal(bearerToken!),
          phone: normalizePhone(input.phone_number)!,
          flowNs: input.flow_ns,
          userFields: input.user_fields ?? {},
          deadlineMs: Date.now() + config.BOT_CALL_TIMEOUT_MS,
        },
        requestId,
      );
      const outcome = await deps.producers.bot.waitForFinish(job, config.BOT_CALL_TIMEOUT_MS);
      if (outcome.outcome !== 'completed') {
        await job.remove().catch(() => undefined);
        // The connector answers before the deadline whenever it runs the call (a slow platform
        // included, with its own message), so silence here means the call was not run in time.
        const message =
          outcome.outcome === 'timeout'
            ? `The bot webhook was not processed within ${Math.round(config.BOT_CALL_TIMEOUT_MS / 1000)} s: the bot connector is unavailable or too busy`
            : 'Bot webhook processing failed';
        throw new ApiError('500', message, { status: 500 });
      }
      const { httpStatus, body, retryAfterSeconds } = outcome.value;
      if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
      res.status(httpStatus).json({ ...body, request_id: requestId });
    });
  });
}
