import Joi from 'joi';
import { documentStoreEnvSchema, type DocumentStoreConfig } from '@gleaner/object-store';
import { accountLimitsEnvSchema, commonEnvSchema, loadConfig, type AccountLimitsConfig, type CommonConfig } from '@gleaner/platform';

export interface GatewayConfig extends CommonConfig, DocumentStoreConfig, AccountLimitsConfig {
  PORT: number;
  HOST: string;
  /** The synchronous window (SPEC: 20 s) after which submits answer 202. */
  SYNC_WINDOW_MS: number;
  DEFAULT_RATE_LIMIT_PER_MINUTE: number;
  /** How long a bot webhook call may take before the gateway answers 500. */
  BOT_CALL_TIMEOUT_MS: number;
  /** A request whose body has not fully arrived this long after it began is answered 408. */
  HTTP_REQUEST_TIMEOUT_MS: number;
  /** /mcp: how often a tool reads the status of a running request (and reports progress). */
  MCP_POLL_MS: number;
  /** /mcp: a session with no open request for this long is closed. */
  MCP_SESSION_IDLE_MS: number;
  /** /mcp: sessions one API key may hold; one more closes its least recently used. */
  MCP_SESSIONS_PER_KEY: number;
  /** /mcp: sessions all the keys of one account may hold together; one more closes the account's least recently used. */
  MCP_SESSIONS_PER_ACCOUNT: number;
  /** Largest `limit` of a crawl (pages); its default is CRAWL_DEFAULT_LIMIT. */
  CRAWL_MAX_LIMIT: number;
  CRAWL_DEFAULT_LIMIT: number;
  /** Distinct URLs a crawl keeps (its frontier and seen URLs): past it, it stops discovering. */
  CRAWL_MAX_URLS: number;
  /** Bytes of results a crawl or batch stores: reaching it ends the crawl. */
  CRAWL_MAX_STORED_BYTES: number;
  /** Largest `max_concurrency` (requests to one host at once); its default is 5. */
  CRAWL_MAX_CONCURRENCY: number;
  /** Crawls and batches one account may have running at once (one more is refused, E010). */
  CRAWL_ACCOUNT_MAX_RUNNING: number;
  /** URLs one batch may carry. */
  BATCH_MAX_URLS: number;
  /** Largest `limit` of a map (links). */
  MAP_MAX_LINKS: number;
  /** With a Sentinel group or a Cluster: longest wait for a replica to hold an accepted request (0: none). */
  REDIS_REPLICA_ACK_MS: number;
}

export const gatewayEnvSchema = Joi.object({
  ...commonEnvSchema,
  ...documentStoreEnvSchema,
  ...accountLimitsEnvSchema,
  PORT: Joi.number().port().default(8080),
  HOST: Joi.string().default('0.0.0.0'),
  SYNC_WINDOW_MS: Joi.number().integer().min(0).max(120_000).default(20_000),
  DEFAULT_RATE_LIMIT_PER_MINUTE: Joi.number().integer().min(1).default(60),
  BOT_CALL_TIMEOUT_MS: Joi.number().integer().min(1000).default(25_000),
  HTTP_REQUEST_TIMEOUT_MS: Joi.number().integer().min(1_000).default(120_000),
  MCP_POLL_MS: Joi.number().integer().min(100).max(60_000).default(5_000),
  MCP_SESSION_IDLE_MS: Joi.number().integer().min(1_000).default(30 * 60_000),
  MCP_SESSIONS_PER_KEY: Joi.number().integer().min(1).max(1_000).default(10),
  MCP_SESSIONS_PER_ACCOUNT: Joi.number().integer().min(1).max(10_000).default(50),
  CRAWL_MAX_LIMIT: Joi.number().integer().min(1).max(1_000_000).default(10_000),
  CRAWL_DEFAULT_LIMIT: Joi.number().integer().min(1).default(100),
  CRAWL_MAX_URLS: Joi.number().integer().min(10).default(100_000),
  CRAWL_MAX_STORED_BYTES: Joi.number().integer().min(1_024).default(100 * 1024 * 1024),
  CRAWL_MAX_CONCURRENCY: Joi.number().integer().min(1).max(100).default(20),
  CRAWL_ACCOUNT_MAX_RUNNING: Joi.number().integer().min(1).default(5),
  BATCH_MAX_URLS: Joi.number().integer().min(1).max(100_000).default(1_000),
  MAP_MAX_LINKS: Joi.number().integer().min(1).default(30_000),
  REDIS_REPLICA_ACK_MS: Joi.number().integer().min(0).max(10_000).default(1_000),
});

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig<GatewayConfig>(gatewayEnvSchema, env);
}
