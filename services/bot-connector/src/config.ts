import Joi from 'joi';
import { commonEnvSchema, loadConfig, type CommonConfig } from '@gleaner/platform';

export interface BotConnectorConfig extends CommonConfig {
  BOT_PLATFORM_BASE_URL: string;
  BOT_CONCURRENCY: number;
  /** Per platform call; a hanging platform ends the call with 500 instead of a hung request. */
  BOT_PLATFORM_TIMEOUT_MS: number;
  /** Bot webhook calls per token per minute, to stay inside the platform's per-token limit. */
  BOT_CALLS_PER_MINUTE_PER_TOKEN: number;
  HEALTH_PORT: number;
}

export const botConnectorEnvSchema = Joi.object({
  ...commonEnvSchema,
  BOT_PLATFORM_BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://www.uchat.com.au/api'),
  BOT_CONCURRENCY: Joi.number().integer().min(1).max(512).default(16),
  BOT_PLATFORM_TIMEOUT_MS: Joi.number().integer().min(100).default(8_000),
  BOT_CALLS_PER_MINUTE_PER_TOKEN: Joi.number().integer().min(1).default(120),
  HEALTH_PORT: Joi.number().port().default(0),
});

export function loadBotConnectorConfig(env: NodeJS.ProcessEnv = process.env): BotConnectorConfig {
  return loadConfig<BotConnectorConfig>(botConnectorEnvSchema, env);
}
