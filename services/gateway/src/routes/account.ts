import type { Router } from 'express';
import { DEFAULT_SUBSCRIPTION_FAMILIES, LLM_PROVIDERS, LlmKeyError, llmBaseUrlProblem, SUBSCRIPTION_FAMILIES, SubscriptionError, type Family, type LlmProvider } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireApiKey } from '../middleware/auth.js';
import { accountIdOf, ctx } from '../middleware/context.js';
import { jsonObjectBody, optionalJsonObjectBody } from '../middleware/json-body.js';
import { addAccountActivityRoutes } from './account-activity.js';
import { addApiKeyRoutes } from './account-keys.js';
import { familyRouter } from './family-router.js';
import { checkUrl, webhookProblemMessage } from '../url-policy.js';

/** POST routes that take no parameters: they work without a body. */
const BODILESS_ACTIONS = new Set(['/webhook-secret/rotate']);

/**
 * `/account/*` (scope `account`): usage, API keys, LLM keys, webhook secret and subscriptions,
 * recent requests (what the console at /console shows). `GET /account` (who am I) answers
 * any valid key, whatever its scopes: it only describes the key itself, and it is what clients
 * (the n8n credential test) call to check a key that may be for scraping or parsing only.
 */
export function accountRouter(deps: GatewayDeps): Router {
  const { stores, config, logger } = deps;
  return familyRouter('account', logger, (router) => {
    router.get('/', requireApiKey(stores.apiKeyGate, null, config.DEFAULT_RATE_LIMIT_PER_MINUTE), async (_req, res) => {
      const account = await stores.accounts.getAccount(accountIdOf(res));
      res.json({ account_id: account?.id, name: account?.name, key_id: ctx(res).keyId, scopes: ctx(res).scopes });
    });

    router.use(requireApiKey(stores.apiKeyGate, 'account', config.DEFAULT_RATE_LIMIT_PER_MINUTE), (req, res, next) =>
      (BODILESS_ACTIONS.has(req.path.replace(/\/$/, '')) ? optionalJsonObjectBody : jsonObjectBody)(req, res, next),
    );

    router.get('/usage', async (_req, res) => {
      const accountId = accountIdOf(res);
      const [usage, account] = await Promise.all([stores.usage.read(accountId), stores.accounts.getAccount(accountId)]);
      res.json({ ...usage, rate_limit_per_minute: account?.rateLimitPerMinute ?? config.DEFAULT_RATE_LIMIT_PER_MINUTE });
    });

    addApiKeyRoutes(router, deps);
    addAccountActivityRoutes(router, deps);

    router.get('/llm-keys', async (_req, res) => {
      res.json({ keys: await stores.llmKeys.list(accountIdOf(res)) });
    });

    router.post('/llm-keys', async (req, res) => {
      const body = req.body as Record<string, unknown>;
      const provider = body.provider ?? 'anthropic';
      if (typeof provider !== 'string' || !(LLM_PROVIDERS as readonly string[]).includes(provider)) throw new ApiError('E009', `provider must be one of ${LLM_PROVIDERS.join(', ')}`);
      for (const field of ['key', 'model', 'base_url', 'label'] as const) {
        if (body[field] !== undefined && typeof body[field] !== 'string') throw new ApiError('E001', `${field} must be a string`);
      }
      if (!body.key) throw new ApiError('E001', 'key is required');
      // Workers will POST the page to this address: like a scrape target, it must resolve, and to
      // public addresses unless the operator allows private networks (operators register LAN
      // servers with the command line, which checks the form only).
      if (body.base_url !== undefined) {
        const formProblem = llmBaseUrlProblem(body.base_url as string);
        if (formProblem) throw new ApiError('E009', formProblem);
        const problem = await checkUrl(body.base_url, { allowPrivateNetworks: config.GLEANER_ALLOW_PRIVATE_NETWORKS, requireHttps: false });
        // 'invalid' after the form check: longer than any URL we take.
        if (problem) throw new ApiError('E009', problem === 'invalid' ? 'base_url is longer than 4096 characters' : webhookProblemMessage('base_url', problem));
      }
      try {
        const summary = await stores.llmKeys.add(accountIdOf(res), {
          provider: provider as LlmProvider,
          secret: body.key as string,
          model: body.model as string | undefined,
          baseUrl: body.base_url as string | undefined,
          label: body.label as string | undefined,
        });
        res.status(201).json(summary);
      } catch (err) {
        if (err instanceof LlmKeyError) throw new ApiError('E009', err.message);
        throw err;
      }
    });

    router.delete('/llm-keys/:id', async (req, res) => {
      const removed = await stores.llmKeys.remove(accountIdOf(res), String(req.params.id));
      if (!removed) throw new ApiError('E002', 'No such language-model key', { status: 404 });
      res.status(204).end();
    });

    router.get('/webhook-secret', async (_req, res) => {
      res.json({ secret: await stores.accounts.webhookSecret(accountIdOf(res)) });
    });

    router.post('/webhook-secret/rotate', async (_req, res) => {
      res.json({ secret: await stores.accounts.rotateWebhookSecret(accountIdOf(res)) });
    });

    // Account-level webhook subscriptions: the lifecycle a workflow trigger (n8n) needs.
    router.get('/webhooks', async (_req, res) => {
      res.json({ webhooks: (await stores.subscriptions.list(accountIdOf(res))).map(subscriptionView) });
    });

    router.post('/webhooks', async (req, res) => {
      const body = req.body as Record<string, unknown>;
      if (typeof body.url !== 'string') throw new ApiError('E001', 'url is required');
      const families = body.families ?? DEFAULT_SUBSCRIPTION_FAMILIES;
      if (!Array.isArray(families) || families.length === 0 || families.some((f) => !SUBSCRIPTION_FAMILIES.includes(f as Family))) {
        throw new ApiError('E009', `families must be a non-empty list of ${SUBSCRIPTION_FAMILIES.join(', ')}`);
      }
      const problem = await checkUrl(body.url, { allowPrivateNetworks: config.GLEANER_ALLOW_PRIVATE_NETWORKS, requireHttps: true });
      if (problem) throw new ApiError('E009', webhookProblemMessage('url', problem));
      try {
        res.status(201).json(subscriptionView(await stores.subscriptions.add(accountIdOf(res), body.url, families as Family[])));
      } catch (err) {
        if (err instanceof SubscriptionError) throw new ApiError('E009', err.message);
        throw err;
      }
    });

    router.delete('/webhooks/:id', async (req, res) => {
      if (!(await stores.subscriptions.remove(accountIdOf(res), String(req.params.id)))) throw new ApiError('E002', 'No such webhook subscription', { status: 404 });
      res.status(204).end();
    });
  });
}

function subscriptionView(s: { id: string; url: string; families: Family[]; createdAt: number }) {
  return { id: s.id, url: s.url, families: s.families, created_at: s.createdAt };
}
