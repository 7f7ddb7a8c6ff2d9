/**
 * `pnpm start`: the whole system in one process (gateway and every worker service) against the
 * Redis at REDIS_URL. Each service reads its own configuration from the same environment.
 */
import { announce, createLogger, exitOnSignals, shutdownInOrder } from '@gleaner/platform';
import { loadGatewayConfig, startGateway } from '@gleaner/gateway';
import { loadScraperWorkerConfig, startScraperWorker } from '@gleaner/scraper-worker';
import { loadParserWorkerConfig, startParserWorker } from '@gleaner/parser-worker';
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from '@gleaner/webhook-dispatcher';
import { loadBotConnectorConfig, startBotConnector } from '@gleaner/bot-connector';

const gatewayConfig = loadGatewayConfig();
const logger = createLogger('gleaner', gatewayConfig.LOG_LEVEL);
// Workers first: by the time the gateway accepts requests, every queue has a consumer.
const workers = await Promise.all([
  startScraperWorker(loadScraperWorkerConfig(), createLogger('scraper-worker', gatewayConfig.LOG_LEVEL)),
  startParserWorker(loadParserWorkerConfig(), createLogger('parser-worker', gatewayConfig.LOG_LEVEL)),
  startWebhookDispatcher(loadWebhookDispatcherConfig(), createLogger('webhook-dispatcher', gatewayConfig.LOG_LEVEL)),
  startBotConnector(loadBotConnectorConfig(), createLogger('bot-connector', gatewayConfig.LOG_LEVEL)),
]);
const gateway = await startGateway(gatewayConfig, createLogger('gateway', gatewayConfig.LOG_LEVEL));

exitOnSignals(
  () =>
    shutdownInOrder(
      [{ name: 'gateway', run: gateway.stop }, ...workers.map((w, i) => ({ name: `worker ${i}`, run: w.stop }))],
      gatewayConfig.SHUTDOWN_DEADLINE_MS * 2,
      logger,
    ),
  logger,
);
announce('gleaner', `gleaner listening on http://${gatewayConfig.HOST}:${new URL(gateway.url).port} (gateway and all workers ready)`);
