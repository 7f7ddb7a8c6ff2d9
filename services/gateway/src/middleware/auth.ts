import type { RequestHandler } from 'express';
import type { AccountStore, Scope } from '@gleaner/store';
import { ApiError } from '../errors/index.js';
import { ctx } from './context.js';

/** `x-api-key` authentication: unknown or revoked key 401, key without the family's scope 403. */
export function requireApiKey(accounts: AccountStore, scope: Scope): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('x-api-key');
    if (!header) throw new ApiError('unauthenticated', 'Missing API key (send it in the x-api-key header)');
    const key = await accounts.authenticate(header.trim());
    if (!key) throw new ApiError('unauthenticated', 'Invalid API key');
    const c = ctx(res);
    c.accountId = key.accountId;
    c.keyId = key.keyId;
    c.scopes = key.scopes;
    if (!key.scopes.includes(scope)) throw new ApiError('forbidden');
    next();
  };
}

/** Bot webhook: a bearer token is required; the platform judges it (its 401 is passed on). */
export const requireBearerToken: RequestHandler = (req, res, next) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!match || match[1].length > 4096) throw new ApiError('unauthenticated');
  ctx(res).bearerToken = match[1];
  next();
};
