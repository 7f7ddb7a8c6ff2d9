import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { AccountStore, RateLimiter } from '@gleaner/store';
import { ApiError } from '../errors/index.js';
import { ctx } from './context.js';

/**
 * Per-key limit shared by every gateway replica (counted in Redis). The account's override wins
 * over the service default. Every answer carries the RateLimit-* headers.
 */
export function rateLimit(limiter: RateLimiter, accounts: AccountStore, defaultPerMinute: number): RequestHandler {
  return async (_req, res, next) => {
    const c = ctx(res);
    let subject: string;
    let limit = defaultPerMinute;
    if (c.keyId) {
      subject = `key:${c.keyId}`;
      const account = c.accountId ? await accounts.getAccount(c.accountId) : null;
      limit = account?.rateLimitPerMinute ?? defaultPerMinute;
    } else if (c.bearerToken) {
      subject = `bearer:${createHash('sha256').update(c.bearerToken).digest('hex').slice(0, 32)}`;
    } else {
      return next();
    }
    const decision = await limiter.consume(subject, limit);
    res.set({
      'RateLimit-Limit': String(decision.limit),
      'RateLimit-Remaining': String(decision.remaining),
      'RateLimit-Reset': String(decision.resetSeconds),
    });
    if (!decision.allowed) {
      throw new ApiError('rate_limited', undefined, { headers: { 'Retry-After': String(decision.resetSeconds) } });
    }
    next();
  };
}
