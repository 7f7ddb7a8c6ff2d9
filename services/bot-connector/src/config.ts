import Joi from 'joi';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface BotConnectorConfig extends CommonConfig {
  BOT_PLATFORM_BASE_URL: string;
  BOT_CONCURRENCY: number;
  /** Per platform request; never longer than the time left before the caller's deadline. */
  BOT_PLATFORM_TIMEOUT_MS: number;
  /** Platform requests per bot token per window, shared by every replica (contract §5: 1000 an hour). */
  BOT_PLATFORM_REQUESTS_PER_TOKEN: number;
  BOT_PLATFORM_REQUEST_WINDOW_SECONDS: number;
  HEALTH_PORT: number;
}

export const botConnectorEnvSchema = Joi.object({
  ...commonEnvSchema,
  BOT_PLATFORM_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://www.uchat.com.au/api'),
  BOT_CONCURRENCY: Joi.number().integer().min(1).max(512).default(16),
  BOT_PLATFORM_TIMEOUT_MS: Joi.number().integer().min(100).default(8_000),
  BOT_PLATFORM_REQUESTS_PER_TOKEN: Joi.number().integer().min(1).default(1_000),
  BOT_PLATFORM_REQUEST_WINDOW_SECONDS: Joi.number().integer().min(1).default(3_600),
  // It counted webhook calls, not the platform requests the limit is about: refuse it loudly
  // rather than let a deployment believe it still applies.
  BOT_CALLS_PER_MINUTE_PER_TOKEN: Joi.any().forbidden().messages({ 'any.unknown': 'BOT_CALLS_PER_MINUTE_PER_TOKEN is replaced by BOT_PLATFORM_REQUESTS_PER_TOKEN (platform requests per BOT_PLATFORM_REQUEST_WINDOW_SECONDS)' }),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadBotConnectorConfig(env: NodeJS.ProcessEnv = process.env): BotConnectorConfig {
  return loadConfig<BotConnectorConfig>(botConnectorEnvSchema, env);
}
