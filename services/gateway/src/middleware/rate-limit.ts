import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import type { RateDecision, RateLimiter } from '@gleaner/store';
import { ApiError } from '../errors/index.js';
import { ctx } from './context.js';

/** Every counted answer carries the RateLimit-* headers; over the limit it is a 429 with Retry-After. */
export function applyRateDecision(res: Response, decision: RateDecision): void {
  res.set({
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  });
  if (!decision.allowed) {
    throw new ApiError('rate_limited', undefined, { headers: { 'Retry-After': String(decision.resetSeconds) } });
  }
}

/**
 * Per bearer token (bot webhook), shared by every gateway replica (counted in Redis). API-key
 * families are limited by `requireApiKey`, in the same round trip as authentication.
 */
export function bearerRateLimit(limiter: RateLimiter, perMinute: number): RequestHandler {
  return async (_req, res, next) => {
    const token = ctx(res).bearerToken;
    if (!token) return next();
    const subject = `bearer:${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
    applyRateDecision(res, await limiter.consume(subject, perMinute));
    next();
  };
}
