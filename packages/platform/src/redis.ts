import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * HTTP producers must fail fast when Redis is away (the gateway answers 503 at once rather than
 * queueing the command), while BullMQ workers need `maxRetriesPerRequest: null` so blocking
 * commands survive reconnects.
 */
export type RedisRole = 'producer' | 'worker';

export function redisOptions(role: RedisRole): RedisOptions {
  const common: RedisOptions = {
    lazyConnect: false,
    connectTimeout: 5_000,
    // Reconnect forever with a capped backoff: the service recovers by itself when Redis returns.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  };
  return role === 'producer'
    ? { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1 }
    : { ...common, maxRetriesPerRequest: null };
}

/**
 * Connection options (not a client) for a Redis URL, for BullMQ workers and queue-event readers:
 * given options, BullMQ owns its connections and closes them; given a client, it would duplicate
 * it and leave the original open.
 */
export function redisConnectionOptions(url: string, role: RedisRole, connectionName?: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    ...redisOptions(role),
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(db ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    connectionName,
  };
}

/**
 * A client that reconnects by itself. Given a logger, a lost connection is logged as an outage
 * (`reportRedisError`); otherwise errors are reported through readiness and the callers' own
 * failures. Either way the 'error' event has a listener: unhandled, it would crash the process
 * on every reconnect attempt.
 */
export function createRedis(url: string, role: RedisRole, connectionName?: string, logger?: Logger): Redis {
  const client = new Redis(url, { ...redisOptions(role), connectionName });
  client.on('error', logger ? (err: Error) => reportRedisError(url, err, logger) : () => undefined);
  return client;
}

/** Errors of a connection that is down or refused, which reconnecting ends; not errors of a command. */
const CONNECTION_ERROR = /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)\b|Connection is closed|Stream isn't writeable|^LOADING\b/;

export function isRedisConnectionError(err: Error): boolean {
  return CONNECTION_ERROR.test(err.message);
}

/** A Redis URL fit for a log line: its password replaced. */
export function redisUrlForLogs(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return '(invalid Redis URL)';
  }
}

/** Outages in progress in this process, by Redis URL: every client and worker of the process shares one. */
const outages = new Map<string, { since: number; errors: number }>();

/**
 * Logs a lost Redis connection once per outage, not once per reconnect attempt: ioredis and each
 * BullMQ worker report every failed attempt (134 lines in 25 s under `pnpm start`). The first
 * connection error logs "cannot reach Redis"; a probe then tries Redis every second and logs that
 * it is back. Errors that are not about the connection are not handled here: false is returned,
 * and callers log them their own way.
 */
export function reportRedisError(url: string, err: Error, logger: Logger): boolean {
  if (!isRedisConnectionError(err)) return false;
  const outage = outages.get(url);
  if (outage) {
    outage.errors++;
    return true;
  }
  const where = redisUrlForLogs(url);
  logger.error(`cannot reach Redis at ${where}: ${err.message}; retrying until it answers (set REDIS_URL to use another Redis)`);
  const started = { since: Date.now(), errors: 0 };
  outages.set(url, started);
  // One connection per try, with no reconnection of its own, and an unref'd timer between tries:
  // a process that is done otherwise (a test, a shutdown) is not kept alive by the probe.
  const probe = () => {
    const client = new Redis(url, { lazyConnect: true, connectTimeout: 5_000, retryStrategy: () => null, maxRetriesPerRequest: 0, connectionName: 'outage-probe' });
    client.on('error', () => undefined);
    client.connect().then(
      () => {
        client.disconnect();
        outages.delete(url);
        logger.info(`Redis at ${where} answers again after ${Math.round((Date.now() - started.since) / 1000)} s (${started.errors} more connection errors not logged)`);
      },
      () => {
        client.disconnect();
        setTimeout(probe, 1_000).unref();
      },
    );
  };
  probe();
  return true;
}

/** Resolves once the client is ready, or rejects after `timeoutMs`. */
export function waitForRedis(client: Redis, timeoutMs = 10_000): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('ready', onReady);
  });
}
