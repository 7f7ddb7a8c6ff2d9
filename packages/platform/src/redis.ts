import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Where the deployment's Redis is, from the environment (configuration.md): one server
 * (`REDIS_URL`), a Sentinel group (`REDIS_SENTINELS` + `REDIS_SENTINEL_MASTER`) or a Cluster
 * (`REDIS_CLUSTER_NODES`). Either of the latter wins over `REDIS_URL`. Every client and every
 * BullMQ connection of every service and of the command line is built from it here, and nowhere else.
 */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'sentinel'; sentinels: HostPort[]; masterName: string; password?: string }
  | { kind: 'cluster'; nodes: HostPort[]; password?: string };

export interface HostPort {
  host: string;
  port: number;
}

/** The settings a RedisTarget is read from (validated by commonEnvSchema). */
export interface RedisSettings {
  REDIS_URL: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_MASTER?: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_PASSWORD?: string;
  GLEANER_REDIS_PREFIX: string;
}

/** `host:port,host:port` (IPv6 hosts in brackets: `[::1]:26379`). */
export function parseHostPorts(list: string): HostPort[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(entry);
      if (!match) throw new Error(`'${entry}' is not host:port`);
      return { host: match[1] ?? match[2]!, port: Number(match[3]) };
    });
}

export function redisTarget(settings: RedisSettings): RedisTarget {
  const password = settings.REDIS_PASSWORD || undefined;
  if (settings.REDIS_CLUSTER_NODES) return { kind: 'cluster', nodes: parseHostPorts(settings.REDIS_CLUSTER_NODES), password };
  if (settings.REDIS_SENTINELS) {
    return { kind: 'sentinel', sentinels: parseHostPorts(settings.REDIS_SENTINELS), masterName: settings.REDIS_SENTINEL_MASTER!, password };
  }
  return { kind: 'server', url: settings.REDIS_URL };
}

/** A hash tag: the part of a key Redis Cluster hashes to choose its slot. */
const HASH_TAG = /\{[^{}]+\}/;

/**
 * The prefix of every key and queue of the deployment. Under Cluster it carries a hash tag
 * (`gleaner` becomes `{gleaner}`), so every key the store and BullMQ build from it hashes to one
 * slot: the store's scripts and transactions touch several keys at once (a record and its
 * idempotency claim, an account's usage and its request index), and so do BullMQ's, which refuse
 * to run on a Cluster without it (CROSSSLOT). A prefix that already holds a tag is kept as it is.
 * On one server or a Sentinel group the prefix is not changed: keys written before stay readable.
 */
export function keyPrefix(target: RedisTarget, prefix: string): string {
  return target.kind === 'cluster' && !HASH_TAG.test(prefix) ? `{${prefix}}` : prefix;
}

/** Where a service keeps its data: the Redis and the key prefix (already slot-safe: keyPrefix). */
export interface DeploymentRedis {
  target: RedisTarget;
  prefix: string;
}

export function deploymentRedis(settings: RedisSettings): DeploymentRedis {
  const target = redisTarget(settings);
  return { target, prefix: keyPrefix(target, settings.GLEANER_REDIS_PREFIX) };
}

/**
 * HTTP producers must fail fast when Redis is away (the gateway answers 503 at once rather than
 * queueing the command), while BullMQ workers need `maxRetriesPerRequest: null` so blocking
 * commands survive reconnects.
 */
export type RedisRole = 'producer' | 'worker';

export type RedisClient = Redis | Cluster;

/** Reconnect forever with a capped backoff: the service recovers by itself when Redis returns. */
const reconnectDelay = (times: number) => Math.min(times * 200, 2_000);

export function redisOptions(role: RedisRole): RedisOptions {
  const common: RedisOptions = {
    lazyConnect: false,
    connectTimeout: 5_000,
    retryStrategy: reconnectDelay,
    // A server that became a replica (a Sentinel failover, an old master back as a replica)
    // refuses writes: reconnect, which finds the current master, and send the command again.
    reconnectOnError: (err) => (/^READONLY\b/.test(err.message) ? 2 : false),
  };
  return role === 'producer'
    ? { ...common, enableOfflineQueue: false, maxRetriesPerRequest: 1 }
    : { ...common, maxRetriesPerRequest: null };
}

/** Per-node options of a server target: its URL's address, database and credentials. */
function serverOptions(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
    ...(db ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** Options of a client of a server or Sentinel target (not Cluster: clusterOptions). */
function clientOptions(target: Exclude<RedisTarget, { kind: 'cluster' }>, role: RedisRole, connectionName?: string): RedisOptions {
  const where: RedisOptions =
    target.kind === 'server'
      ? serverOptions(target.url)
      : {
          sentinels: target.sentinels,
          name: target.masterName,
          ...(target.password ? { password: target.password } : {}),
          sentinelRetryStrategy: reconnectDelay,
          // Not ioredis's failoverDetector: its subscriptions to the sentinels outlive a client
          // closed with QUIT (as BullMQ closes its own), and keep the process alive. A master
          // that stops answering is noticed by socketTimeout instead.
          ...failoverTimeouts(role),
        };
  return { ...redisOptions(role), ...where, connectionName };
}

/**
 * ioredis's socketTimeout timer is left running when a connection closes with a command still
 * waiting (a worker's blocking read cut by close()), and would keep a finished process (a test
 * file, a service past its shutdown) alive until it fires: it is unreferenced here, which changes
 * nothing while the process has other work (it still fires), once, for every client of the process.
 */
const socketTimerHost = Redis.prototype as unknown as { setSocketTimeout?: () => void; gleanerUnrefTimer?: boolean };
if (typeof socketTimerHost.setSocketTimeout === 'function' && !socketTimerHost.gleanerUnrefTimer) {
  const setSocketTimeout = socketTimerHost.setSocketTimeout;
  socketTimerHost.setSocketTimeout = function (this: { socketTimeoutTimer?: NodeJS.Timeout }) {
    setSocketTimeout.call(this);
    this.socketTimeoutTimer?.unref();
  };
  socketTimerHost.gleanerUnrefTimer = true;
}

/**
 * With a Sentinel group or a Cluster there is another server to go to: a master that vanished
 * without closing the connection (its host down, a partition) is given up on when a command gets
 * no reply in this time, and the reconnect finds the master the failover promoted (without it,
 * TCP gives up after ~15 minutes). Longer for workers: BullMQ's blocking reads wait up to 10 s.
 * Not on one server: there is nowhere else to go, and ioredis's timer of a command cut by a
 * close outlives the client (up to this long).
 */
function failoverTimeouts(role: RedisRole): RedisOptions {
  return { socketTimeout: role === 'producer' ? 5_000 : 30_000 };
}

function clusterOptions(target: Extract<RedisTarget, { kind: 'cluster' }>, role: RedisRole, connectionName?: string, lazyConnect = false): ClusterOptions {
  const { enableOfflineQueue, ...perNode } = redisOptions(role);
  return {
    lazyConnect,
    enableOfflineQueue: enableOfflineQueue ?? true,
    clusterRetryStrategy: reconnectDelay,
    // A master that died: ask the cluster again for the slots' owners and retry, while a replica
    // takes over (measured ~8 s with cluster-node-timeout 5 s).
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshInterval: 2_000,
    redisOptions: { ...perNode, ...failoverTimeouts(role), connectionName, ...(target.password ? { password: target.password } : {}) },
  };
}

/**
 * Connection for BullMQ workers and queue-event readers. On a server or a Sentinel group these
 * are options, not a client: given options, BullMQ owns its connections and closes them; given a
 * client it would duplicate it and leave the original open. A Cluster cannot be given as options,
 * so it is a client that connects only when used (lazyConnect): BullMQ duplicates it for its
 * blocking connections, and a Worker runs its other commands on it. Its owner closes it with the
 * worker or reader (releaseBullmqConnection).
 */
export function bullmqConnection(target: RedisTarget, role: RedisRole, connectionName?: string): RedisOptions | Cluster {
  if (target.kind === 'cluster') {
    const client = new Cluster(target.nodes, clusterOptions(target, role, connectionName, true));
    client.on('error', () => undefined);
    return client;
  }
  return clientOptions(target, role, connectionName);
}

/** Closes what bullmqConnection opened (a Cluster client; options hold nothing). */
export function releaseBullmqConnection(connection: RedisOptions | Cluster): void {
  if (connection instanceof Cluster) connection.disconnect();
}

/** The target in words for log lines and errors: no password. */
export function redisTargetForLogs(target: RedisTarget): string {
  if (target.kind === 'server') return `Redis at ${redisUrlForLogs(target.url)}`;
  const list = (nodes: HostPort[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  if (target.kind === 'sentinel') return `Redis master '${target.masterName}' of sentinels ${list(target.sentinels)}`;
  return `Redis Cluster at ${list(target.nodes)}`;
}

/**
 * A client that reconnects by itself. Given a logger, a lost connection is logged as an outage
 * (`reportRedisError`); otherwise errors are reported through readiness and the callers' own
 * failures. Either way the 'error' event has a listener: unhandled, it would crash the process
 * on every reconnect attempt.
 */
export function createRedis(target: RedisTarget, role: RedisRole, connectionName?: string, logger?: Logger): RedisClient {
  const client = target.kind === 'cluster' ? new Cluster(target.nodes, clusterOptions(target, role, connectionName)) : new Redis(clientOptions(target, role, connectionName));
  client.on('error', logger ? (err: Error) => reportRedisError(target, err, logger) : () => undefined);
  return client;
}

/** One connection attempt, without reconnecting: the outage probe's. */
function probeClient(target: RedisTarget): RedisClient {
  if (target.kind === 'cluster') return new Cluster(target.nodes, { ...clusterOptions(target, 'producer', 'outage-probe', true), clusterRetryStrategy: () => null });
  return new Redis({ ...clientOptions(target, 'producer', 'outage-probe'), lazyConnect: true, retryStrategy: () => null, sentinelRetryStrategy: () => null, maxRetriesPerRequest: 0 });
}

/** Errors of a connection that is down or refused, which reconnecting ends; not errors of a command. */
const CONNECTION_ERROR = /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)\b|Connection is closed|Stream isn't writeable|^LOADING\b|^CLUSTERDOWN\b|^TRYAGAIN\b|^MASTERDOWN\b|Failed to refresh slots cache|Too many Cluster redirections|All sentinels are unreachable/;

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

/** Outages in progress in this process, by Redis target: every client and worker of the process shares one. */
const outages = new Map<string, { since: number; errors: number }>();

/**
 * Logs a lost Redis connection once per outage, not once per reconnect attempt: ioredis and each
 * BullMQ worker report every failed attempt (134 lines in 25 s under `pnpm start`). The first
 * connection error logs "cannot reach Redis"; a probe then tries Redis every second and logs that
 * it is back. Errors that are not about the connection are not handled here: false is returned,
 * and callers log them their own way.
 */
export function reportRedisError(target: RedisTarget, err: Error, logger: Logger): boolean {
  if (!isRedisConnectionError(err)) return false;
  const where = redisTargetForLogs(target);
  const outage = outages.get(where);
  if (outage) {
    outage.errors++;
    return true;
  }
  logger.error(`cannot reach ${where}: ${err.message}; retrying until it answers (set REDIS_URL to use another Redis)`);
  const started = { since: Date.now(), errors: 0 };
  outages.set(where, started);
  // One connection per try, with no reconnection of its own, and an unref'd timer between tries:
  // a process that is done otherwise (a test, a shutdown) is not kept alive by the probe.
  const probe = () => {
    const client = probeClient(target);
    client.on('error', () => undefined);
    client.connect().then(
      () => {
        client.disconnect();
        outages.delete(where);
        logger.info(`${where} answers again after ${Math.round((Date.now() - started.since) / 1000)} s (${started.errors} more connection errors not logged)`);
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
export function waitForRedis(client: RedisClient, timeoutMs = 10_000): Promise<void> {
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
