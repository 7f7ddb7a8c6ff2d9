import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDocumentStore, prepareDocumentStore } from '@gleaner/object-store';
import { createLogger, createRedis, deploymentRedis, onMetricsScrape, QUEUE_DEPTH_STATES, queueBacklog, queueDepth, shutdownInOrder, type Logger } from '@gleaner/platform';
import { QueueBacklogs, QueueProducer, botQueue, crawlQueue, mapQueue, parseQueue, scrapeQueue, scrapeV1Queue } from '@gleaner/queues';
import { accountLimitsOf, createStores, McpSessionDirectory, RecordEndings, ReplicaAcks } from '@gleaner/store';
import { createGatewayApp } from './app.js';
import { answerRequestsExpressNeverSees } from './client-errors.js';
import type { GatewayConfig } from './config.js';
import type { GatewayDeps } from './deps.js';
import { createMcpSessions, ownApiUrl, OwnToolReads } from './routes/mcp.js';

export interface RunningGateway {
  url: string;
  deps: GatewayDeps;
  /** Readiness: accepting requests and Redis answers (what `/readyz` answers). */
  isReady(): Promise<boolean>;
  stop(): Promise<void>;
}

/** Opens connections, serves HTTP, and returns an ordered stop (unready, stop HTTP, close queues, close Redis). */
export async function startGateway(config: GatewayConfig, logger: Logger = createLogger('gateway', config.LOG_LEVEL)): Promise<RunningGateway> {
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'producer', 'gateway', logger);
  // Jobs are added on the stores' connection: a request's record is written on it just before its
  // job, and one connection keeps that order (see submitAndWait).
  const producers = {
    scrape: new QueueProducer(scrapeQueue, connection, redis),
    scrapeV1: new QueueProducer(scrapeV1Queue, connection, redis),
    parse: new QueueProducer(parseQueue, connection, redis),
    bot: new QueueProducer(botQueue, connection, redis),
    crawl: new QueueProducer(crawlQueue, connection, redis),
    map: new QueueProducer(mapQueue, connection, redis),
  };
  const stores = createStores(redis, connection.prefix, config.GLEANER_SECRET, accountLimitsOf(config));
  // Its own connection, reconnecting by itself: a subscribed client can send nothing else.
  const recordEndings = new RecordEndings(createRedis(connection.target, 'worker', 'gateway:record-endings'), stores.records, connection.prefix);
  // One server has no failover to lose writes to (and often no replica to wait for).
  const replicaAcks = connection.target.kind !== 'server' && config.REDIS_REPLICA_ACK_MS > 0
    ? new ReplicaAcks(createRedis(connection.target, 'producer', 'gateway:replica-acks'), connection.prefix, config.REDIS_REPLICA_ACK_MS, logger)
    : null;
  const documents = createDocumentStore(config);
  await prepareDocumentStore(documents, (message) => logger.warn(message));
  const deps: GatewayDeps = { config, logger, redis, stores, documents, recordEndings, replicaAcks, producers };

  const backlogs = new QueueBacklogs(redis, connection);
  // Queue depths are sampled from Redis when Prometheus scrapes, not kept in memory.
  const stopSampling = onMetricsScrape(async () => {
    for (const producer of Object.values(producers)) {
      const counts = await producer.queue.getJobCounts(...QUEUE_DEPTH_STATES);
      for (const [state, n] of Object.entries(counts)) queueDepth.set({ queue: producer.contract.name, state }, n);
    }
    for (const [queue, n] of Object.entries((await backlogs.read()).queues)) queueBacklog.set({ queue }, n);
  });

  let accepting = true;
  const isReady = async () => accepting && redis.status === 'ready' && (await redis.ping()) === 'PONG';
  let ownUrl = '';
  const ownToolReads = new OwnToolReads();
  const mcpSessions = createMcpSessions(config, () => ownUrl, ownToolReads, new McpSessionDirectory(redis, connection.prefix, config.MCP_SESSION_IDLE_MS));
  const app = createGatewayApp(deps, { isReady, mcpSessions, ownToolReads, backlogs: () => backlogs.read() });
  // Without a Host header Node would answer a bare 400 itself; the API does not use Host, so express answers.
  // The request timeout (default 120 s) is longer than the 20 s window plus the bot timeout, so
  // submits are never cut by the server; a body still arriving then is answered 408. Node looks for
  // expired requests every connectionsCheckingInterval (30 s by default): an eighth of the timeout
  // keeps the 408 near it.
  const requestTimeout = config.HTTP_REQUEST_TIMEOUT_MS;
  const server = http.createServer(
    { requireHostHeader: false, requestTimeout, headersTimeout: Math.min(30_000, requestTimeout), connectionsCheckingInterval: Math.min(30_000, Math.ceil(requestTimeout / 8)) },
    app,
  );
  answerRequestsExpressNeverSees(server, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, resolve);
  });
  // Listening before the first submit waits: the scrape and parse windows on record endings, the
  // bot call on its queue's events.
  await Promise.all([recordEndings.start(), producers.bot.ready()].map((p) => p.catch(() => undefined)));
  const address = server.address();
  ownUrl = ownApiUrl(address as AddressInfo);
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;

  return {
    url,
    deps,
    isReady,
    stop: () =>
      shutdownInOrder(
        [
          { name: 'unready', run: () => { accepting = false; stopSampling(); } },
          // MCP sessions first: their event streams would hold the HTTP server open.
          { name: 'http', run: () => mcpSessions.closeAll().then(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); })) },
          { name: 'queues', run: () => Promise.all([...Object.values(producers).map((p) => p.close()), backlogs.close(), recordEndings.close(), documents.close(), replicaAcks?.close()]) },
          { name: 'redis', run: () => redis.quit().catch(() => redis.disconnect()) },
        ],
        config.SHUTDOWN_DEADLINE_MS,
        logger,
      ),
  };
}
