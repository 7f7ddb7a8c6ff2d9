import type { Request, RequestHandler } from 'express';
import type { ApiKeyGate, RateCount, Scope } from '@gleaner/store';
import { ApiError } from '../errors/index.js';
import { ctx } from './context.js';
import { applyRateDecision } from './rate-limit.js';

/**
 * The API key a request presents: `x-api-key`, or with `acceptBearer` also `Authorization:
 * Bearer <key>` (what MCP clients send for a token; x-api-key wins when both are sent).
 */
export function presentedApiKey(req: Request, acceptBearer = false): string | undefined {
  const header = req.get('x-api-key')?.trim();
  if (header || !acceptBearer) return header || undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
}

/**
 * `x-api-key` admission, one Redis round trip: unknown or revoked key 401, key without the
 * family's scope 403 (neither counts against the limit), then the account's limit (all its keys
 * together) shared by every gateway replica, the account's override winning over
 * `defaultPerMinute` (429). `scope` null: any valid key. `counts`: which log the request counts in
 * (a status read of this gateway's own MCP tools counts in none).
 */
export function requireApiKey(gate: ApiKeyGate, scope: Scope | null, defaultPerMinute: number, { acceptBearer = false, counts = 'api' as RateCount } = {}): RequestHandler {
  return async (req, res, next) => {
    const key = presentedApiKey(req, acceptBearer);
    if (!key) throw new ApiError('unauthenticated', `Missing API key (send it in the x-api-key header${acceptBearer ? ' or as Authorization: Bearer <key>' : ''})`);
    const outcome = await gate.admit(key, scope, defaultPerMinute, ctx(res).ownToolRead ? 'none' : counts);
    if (outcome.kind === 'unknown') throw new ApiError('unauthenticated', 'Invalid API key');
    const c = ctx(res);
    c.accountId = outcome.key.accountId;
    c.keyId = outcome.key.keyId;
    c.scopes = outcome.key.scopes;
    if (outcome.kind === 'forbidden') throw new ApiError('forbidden', undefined, { details: [missingScopeDetail(scope!, outcome.key.scopes)] });
    if (outcome.rate) applyRateDecision(res, outcome.rate);
    next();
  };
}

/** The 403's detail in every family: which scope the API needs and which the key has. */
export function missingScopeDetail(scope: Scope, keyScopes: readonly string[]): string {
  return `this API needs a key with the '${scope}' scope; this key has ${keyScopes.length ? keyScopes.map((s) => `'${s}'`).join(', ') : 'none'}`;
}

/** Bot webhook: a bearer token is required; the platform judges it (its 401 is passed on). */
export const requireBearerToken: RequestHandler = (req, res, next) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!match || match[1].length > 4096) throw new ApiError('unauthenticated');
  ctx(res).bearerToken = match[1];
  next();
};
