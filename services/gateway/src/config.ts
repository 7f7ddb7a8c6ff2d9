import Joi from 'joi';
import { documentStoreEnvSchema, type DocumentStoreConfig } from '@gleaner/object-store';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface GatewayConfig extends CommonConfig, DocumentStoreConfig {
  PORT: number;
  HOST: string;
  /** The synchronous window (SPEC: 20 s) after which submits answer 202. */
  SYNC_WINDOW_MS: number;
  DEFAULT_RATE_LIMIT_PER_MINUTE: number;
  /** How long a bot webhook call may take before the gateway answers 500. */
  BOT_CALL_TIMEOUT_MS: number;
}

export const gatewayEnvSchema = Joi.object({
  ...commonEnvSchema,
  ...documentStoreEnvSchema,
  PORT: Joi.number().port().default(8080),
  HOST: Joi.string().default('0.0.0.0'),
  SYNC_WINDOW_MS: Joi.number().integer().min(0).max(120_000).default(20_000),
  DEFAULT_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  BOT_CALL_TIMEOUT_MS: Joi.number().integer().min(1000).default(25_000),
});

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig<GatewayConfig>(gatewayEnvSchema, env);
}
