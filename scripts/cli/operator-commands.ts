/**
 * The operator commands (INTERFACE.md): they work on Redis directly, with the deployment's
 * REDIS_URL, GLEANER_REDIS_PREFIX and GLEANER_SECRET. Loaded by gleaner-cli.ts only when one of
 * them runs: Redis, joi and the stores are not loaded for `--help` or the user commands.
 */
import { accountLimitsEnvSchema, commonEnvSchema, createRedis, deploymentRedis, loadConfig, redisTargetForLogs, waitForRedis, type AccountLimitsConfig, type CommonConfig } from '@gleaner/platform';
import { AccountError, accountLimitsOf, createStores, LLM_PROVIDERS, LlmKeyError, SCOPES, type LlmProvider, type Scope } from '@gleaner/store';
import Joi from 'joi';
import { requiredFlag as required, UsageError } from './usage-error.js';

export async function runOperatorCommand(command: string, rest: string[], flags: Record<string, string>): Promise<void> {
  try {
    await run(command, rest, flags);
  } catch (err) {
    // The stores' verdicts on bad input are one-line errors like the command line's own.
    if (err instanceof AccountError || err instanceof LlmKeyError) throw new UsageError(err.message);
    throw err;
  }
}

async function run(command: string, rest: string[], flags: Record<string, string>): Promise<void> {
  const config = loadConfig<CommonConfig & AccountLimitsConfig>(Joi.object({ ...commonEnvSchema, ...accountLimitsEnvSchema }));
  const { target, prefix } = deploymentRedis(config);
  const redis = createRedis(target, 'worker', 'gleaner-cli');
  try {
    await waitForRedis(redis, 5_000).catch(() => {
      throw new UsageError(`cannot reach ${redisTargetForLogs(target)}: is it running? REDIS_URL sets its address (pnpm start runs one when it is unset)`);
    });
    const stores = createStores(redis, prefix, config.GLEANER_SECRET, accountLimitsOf(config));
    const accountByName = async (name: string) => {
      const account = await stores.accounts.getAccountByName(name);
      if (!account) throw new UsageError(`no account named '${name}'`);
      return account;
    };
    switch (command) {
      case 'accounts create': {
        if (!rest[0]) throw new UsageError('accounts create <name>');
        const account = await stores.accounts.createAccount(rest[0]);
        console.log(`account ${account.name} ${account.id}`);
        return;
      }
      case 'accounts set-rate-limit': {
        const [name, perMinute] = rest;
        if (!name || !perMinute) throw new UsageError('accounts set-rate-limit <name> <requestsPerMinute>');
        if (!/^\d+$/.test(perMinute)) throw new UsageError(`requestsPerMinute must be a whole number, not '${perMinute}'`);
        const account = await stores.accounts.setRateLimit((await accountByName(name)).id, Number(perMinute));
        console.log(`account ${account.name} rate limit ${account.rateLimitPerMinute}/min`);
        return;
      }
      case 'keys create': {
        const account = await accountByName(required(flags, 'account'));
        const scopes = (flags.scopes ?? SCOPES.join(',')).split(',').map((s) => s.trim()).filter(Boolean) as Scope[];
        const { apiKey, record } = await stores.accounts.createApiKey(account.id, scopes);
        console.log(`key ${record.keyId} scopes ${record.scopes.join(',')}`);
        console.log(apiKey);
        return;
      }
      case 'keys list': {
        const account = await accountByName(required(flags, 'account'));
        for (const k of await stores.accounts.listApiKeys(account.id)) {
          console.log(`${k.keyId}\t${k.scopes.join(',')}\t${k.revokedAt ? 'revoked' : 'active'}\t${k.preview}…`);
        }
        return;
      }
      case 'keys revoke': {
        if (!rest[0]) throw new UsageError('keys revoke <keyId>');
        const record = await stores.accounts.revokeApiKey(rest[0]);
        console.log(`key ${record.keyId} revoked`);
        return;
      }
      case 'llm-keys add': {
        const account = await accountByName(required(flags, 'account'));
        const provider = required(flags, 'provider');
        if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) throw new UsageError(`--provider must be one of ${LLM_PROVIDERS.join(', ')}`);
        const summary = await stores.llmKeys.add(account.id, {
          provider: provider as LlmProvider,
          secret: required(flags, 'key'),
          model: flags.model,
          baseUrl: flags['base-url'],
          label: flags.label,
        });
        console.log(summary.id);
        return;
      }
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } finally {
    redis.disconnect();
  }
}
