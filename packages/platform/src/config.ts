import Joi from 'joi';
import { localSecret } from './local-secret.js';
import type { RedisSettings } from './redis.js';

/** `host:port,host:port`: the sentinels of a group, or some nodes of a Cluster. */
const hostPortList = Joi.string().pattern(/^\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}\s*(?:,\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}\s*)*$/, 'host:port,host:port');

/** Environment entries every service reads (INTERFACE.md: names are fixed). */
export const commonEnvSchema = {
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }).default('redis://127.0.0.1:6379'),
  /** A Sentinel group (wins over REDIS_URL): its sentinels, and the name of the master they watch. */
  REDIS_SENTINELS: hostPortList,
  REDIS_SENTINEL_MASTER: Joi.string().pattern(/^[A-Za-z0-9_.-]+$/).when('REDIS_SENTINELS', { is: Joi.exist(), then: Joi.required() }),
  /** A Redis Cluster (wins over REDIS_URL): some of its nodes, the rest are found from them. */
  REDIS_CLUSTER_NODES: hostPortList.when('REDIS_SENTINELS', { is: Joi.exist(), then: Joi.forbidden().messages({ 'any.unknown': '"REDIS_CLUSTER_NODES" and "REDIS_SENTINELS" cannot both be set' }) }),
  /** Password of the Sentinel group's or the Cluster's servers (with REDIS_URL it is in the URL). */
  REDIS_PASSWORD: Joi.string(),
  /** Letters, digits, `_.-`; may hold one hash tag (`{gleaner}`), which Cluster needs and adds when missing (keyPrefix). */
  GLEANER_REDIS_PREFIX: Joi.string().pattern(/^[A-Za-z0-9_.-]*(?:\{[A-Za-z0-9_.-]+\}[A-Za-z0-9_.-]*)?$/).min(1).default('gleaner'),
  NODE_ENV: Joi.string().valid('production', 'development', 'test').default('production'),
  LOG_LEVEL: Joi.string().valid('error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly').default('info'),
  GLEANER_ALLOW_PRIVATE_NETWORKS: Joi.boolean().truthy('1').falsy('0').default(false),
  /** Unset: the secret kept in GLEANER_SECRET_FILE is used, generated there on first boot. */
  GLEANER_SECRET: Joi.string().min(16),
  GLEANER_SECRET_FILE: Joi.string(),
  SHUTDOWN_DEADLINE_MS: Joi.number().integer().min(100).default(10_000),
  /** How long a worker holds a job before it counts as stalled (its lock is renewed while alive). */
  WORKER_LOCK_DURATION_MS: Joi.number().integer().min(1_000).default(30_000),
  /** How often workers look for stalled jobs left by a dead worker. */
  WORKER_STALLED_INTERVAL_MS: Joi.number().integer().min(500).default(15_000),
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * The secret of this checkout's file. Said once per machine, when the file is created (every
 * command and service after reads it silently): a warning repeated by every operator command and
 * at every start teaches people to skip warnings.
 */
function secretFromFile(file: string | undefined): string {
  const { secret, created } = localSecret(file);
  if (created) {
    // Written before any logger exists, as a JSON line like the logs: other machines will not share this file.
    const where = file ?? 'the .gleaner/secret file of this checkout';
    const message = `GLEANER_SECRET is not set: generated a secret in ${where}, which every process started from this checkout uses from now on (said once); set GLEANER_SECRET when services run on more than one machine`;
    process.stderr.write(`${JSON.stringify({ level: 'warn', message })}\n`);
  }
  return secret;
}

/**
 * Validate the environment against a service's schema. Unknown variables are ignored (the
 * environment is full of them); invalid ones fail loudly at boot with every problem listed.
 */
export function loadConfig<T>(schema: Joi.ObjectSchema, env: NodeJS.ProcessEnv = process.env): T {
  const { value, error } = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (error) {
    throw new ConfigError(`invalid configuration: ${error.details.map((d) => d.message).join('; ')}`);
  }
  if (schema.describe().keys?.GLEANER_SECRET && !value.GLEANER_SECRET) value.GLEANER_SECRET = secretFromFile(value.GLEANER_SECRET_FILE);
  return value as T;
}

export interface CommonConfig extends RedisSettings {
  NODE_ENV: 'production' | 'development' | 'test';
  LOG_LEVEL: string;
  GLEANER_ALLOW_PRIVATE_NETWORKS: boolean;
  GLEANER_SECRET: string;
  GLEANER_SECRET_FILE?: string;
  SHUTDOWN_DEADLINE_MS: number;
  WORKER_LOCK_DURATION_MS: number;
  WORKER_STALLED_INTERVAL_MS: number;
}

/**
 * What one account may hold, read by the gateway (the API creates keys) and the operator
 * commands (so do they): see AccountLimits in @gleaner/store and docs/tenant-isolation.md.
 */
export const accountLimitsEnvSchema = {
  ACCOUNT_MAX_API_KEYS: Joi.number().integer().min(1).max(100_000).default(100),
  REVOKED_API_KEY_RETENTION_SECONDS: Joi.number().integer().min(1).default(7 * 24 * 3600),
  ACCOUNT_MAX_LLM_KEYS: Joi.number().integer().min(1).max(10_000).default(20),
};

export interface AccountLimitsConfig {
  ACCOUNT_MAX_API_KEYS: number;
  REVOKED_API_KEY_RETENTION_SECONDS: number;
  ACCOUNT_MAX_LLM_KEYS: number;
}
