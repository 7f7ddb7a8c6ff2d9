import { Redis, type RedisOptions } from 'ioredis';

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

export function createRedis(url: string, role: RedisRole, connectionName?: string): Redis {
  const client = new Redis(url, { ...redisOptions(role), connectionName });
  // Errors are reported through readiness and the callers' own failures; an unhandled
  // 'error' event would otherwise crash the process on every reconnect attempt.
  client.on('error', () => undefined);
  return client;
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
