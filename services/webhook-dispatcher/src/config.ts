import Joi from 'joi';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface WebhookDispatcherConfig extends CommonConfig {
  WEBHOOK_CONCURRENCY: number;
  /** Per-attempt timeout (SPEC: receivers should answer within 30 s). */
  WEBHOOK_TIMEOUT_MS: number;
  /** First retry delay; doubles per attempt with jitter. Tests shorten it; production keeps 30 s. */
  WEBHOOK_BACKOFF_BASE_MS: number;
  /** Deliveries one account may have in flight over every dispatcher; unset: half of WEBHOOK_CONCURRENCY, 0: no cap. */
  ACCOUNT_MAX_CONCURRENT_JOBS?: number;
  HEALTH_PORT: number;
}

export const webhookDispatcherEnvSchema = Joi.object({
  ...commonEnvSchema,
  WEBHOOK_CONCURRENCY: Joi.number().integer().min(1).max(512).default(32),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).default(30_000),
  WEBHOOK_BACKOFF_BASE_MS: Joi.number().integer().min(1).default(30_000),
  ACCOUNT_MAX_CONCURRENT_JOBS: Joi.number().integer().min(0).max(10_000),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv = process.env): WebhookDispatcherConfig {
  return loadConfig<WebhookDispatcherConfig>(webhookDispatcherEnvSchema, env);
}
