import type { Router } from 'express';
import { AccountError, SCOPES, type ApiKeyListing, type Scope } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { accountIdOf } from '../middleware/context.js';

/** A key as `/account/keys` shows it: never the key itself, nor its hash. */
function apiKeyView(k: ApiKeyListing) {
  return {
    key_id: k.keyId,
    ...(k.label ? { label: k.label } : {}),
    scopes: k.scopes,
    preview: k.preview,
    created_at: k.createdAt,
    ...(k.lastUsedAt !== undefined ? { last_used_at: k.lastUsedAt } : {}),
    ...(k.revokedAt !== undefined ? { revoked_at: k.revokedAt } : {}),
  };
}

/**
 * `/account/keys`: the SPEC's "API Keys section" of the dashboard. A key is shown once, in the
 * answer that creates it; revocation applies to the key's very next request.
 */
export function addApiKeyRoutes(router: Router, { stores }: GatewayDeps): void {
  router.get('/keys', async (_req, res) => {
    res.json({ keys: (await stores.accounts.listApiKeys(accountIdOf(res))).map(apiKeyView) });
  });

  router.post('/keys', async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const scopes = body.scopes;
    if (!Array.isArray(scopes) || scopes.length === 0 || scopes.some((s) => !(SCOPES as readonly unknown[]).includes(s))) {
      throw new ApiError('E009', `scopes must be a non-empty list of ${SCOPES.join(', ')}`);
    }
    if (body.label !== undefined && typeof body.label !== 'string') throw new ApiError('E001', 'label must be a string');
    try {
      const { apiKey, record } = await stores.accounts.createApiKey(accountIdOf(res), scopes as Scope[], { label: body.label as string | undefined });
      res.status(201).json({ key: apiKey, ...apiKeyView(record) });
    } catch (err) {
      if (err instanceof AccountError) throw new ApiError('E009', err.message);
      throw err;
    }
  });

  router.delete('/keys/:id', async (req, res) => {
    try {
      await stores.accounts.revokeApiKey(String(req.params.id), accountIdOf(res));
    } catch (err) {
      if (err instanceof AccountError) throw new ApiError('E002', 'No such API key', { status: 404 });
      throw err;
    }
    res.status(204).end();
  });
}
