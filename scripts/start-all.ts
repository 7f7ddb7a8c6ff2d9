/**
 * `pnpm start`: the whole system in one process (gateway and every worker service) against the
 * Redis at REDIS_URL (or its Sentinel group or Cluster), or with none of them set a Redis of its own for this machine when none answers
 * at the default address. Each service reads its own configuration from the same environment.
 */
import { announce, createLogger, exitOnBootFailure, exitOnSignals, shutdownInOrder, startHealthServer, startLocalRedisUnlessAnswering } from '@gleaner/platform';
import { loadGatewayConfig, startGateway } from '@gleaner/gateway';
import { loadScraperWorkerConfig, startScraperWorker } from '@gleaner/scraper-worker';
import { loadParserWorkerConfig, startParserWorker } from '@gleaner/parser-worker';
import { loadWebhookDispatcherConfig, startWebhookDispatcher } from '@gleaner/webhook-dispatcher';
import { loadBotConnectorConfig, startBotConnector } from '@gleaner/bot-connector';
import { CHROMIUM_INSTALL_HINT, loadBrowserWorkerConfig, missingChromium, startBrowserWorker } from '@gleaner/browser-worker';

async function main(): Promise<void> {
  const gatewayConfig = loadGatewayConfig();
  const logger = createLogger('gleaner', gatewayConfig.LOG_LEVEL);
  const scraperConfig = loadScraperWorkerConfig();
  // A Sentinel group or a Cluster is never started here: only the one-machine default is.
  const redisNamed = process.env.REDIS_URL || process.env.REDIS_SENTINELS || process.env.REDIS_CLUSTER_NODES;
  const localRedis = redisNamed ? null : await startLocalRedisUnlessAnswering(logger);
  // HEALTH_PORT is one port: each worker service would bind it. This process serves one health and
  // metrics server for all of them instead (the metrics registry is already shared).
  const healthPort = scraperConfig.HEALTH_PORT;
  const withoutOwnHealth = <C extends { HEALTH_PORT: number }>(config: C): C => ({ ...config, HEALTH_PORT: 0 });
  // Chromium is optional here (a fresh machine has none): everything but rendering works without
  // it, and the scraper says why a page to render fails or keeps its static text.
  const browserConfig = loadBrowserWorkerConfig();
  const noChromium = missingChromium(browserConfig.CHROMIUM_PATH);
  const noBrowserHere = noChromium ? `${noChromium}, so pnpm start runs no browser-worker (to render pages: ${CHROMIUM_INSTALL_HINT}, then start again)` : undefined;
  if (noChromium) {
    logger.warn(
      `browser-worker off: ${noChromium}. Pages are read without running their JavaScript: render_js "auto" keeps the static page (meta.render_error says why), render_js true fails with E008. To turn it on: ${CHROMIUM_INSTALL_HINT}, then start again`,
    );
  }
  // Workers first: by the time the gateway accepts requests, every queue has a consumer.
  const workers = await Promise.all([
    startScraperWorker(withoutOwnHealth(scraperConfig), createLogger('scraper-worker', gatewayConfig.LOG_LEVEL), { noBrowserHere }),
    startParserWorker(withoutOwnHealth(loadParserWorkerConfig()), createLogger('parser-worker', gatewayConfig.LOG_LEVEL)),
    startWebhookDispatcher(withoutOwnHealth(loadWebhookDispatcherConfig()), createLogger('webhook-dispatcher', gatewayConfig.LOG_LEVEL)),
    startBotConnector(withoutOwnHealth(loadBotConnectorConfig()), createLogger('bot-connector', gatewayConfig.LOG_LEVEL)),
    // Chromium itself starts with the first page to render (and stops when idle).
    ...(noChromium ? [] : [startBrowserWorker(withoutOwnHealth(browserConfig), createLogger('browser-worker', gatewayConfig.LOG_LEVEL))]),
  ]);
  const gateway = await startGateway(gatewayConfig, createLogger('gateway', gatewayConfig.LOG_LEVEL));
  const services = [gateway, ...workers];
  const allReady = async () => (await Promise.all(services.map((s) => s.isReady()))).every(Boolean);
  const health = healthPort ? await startHealthServer(healthPort, allReady) : null;

  exitOnSignals(
    () =>
      shutdownInOrder(
        [
          { name: 'health', run: () => health?.close() },
          { name: 'gateway', run: gateway.stop },
          ...workers.map((w, i) => ({ name: `worker ${i}`, run: w.stop })),
          { name: 'redis', run: () => localRedis?.stop() },
        ],
        gatewayConfig.SHUTDOWN_DEADLINE_MS * 2,
        logger,
      ),
    logger,
  );
  announce('gleaner', `gleaner listening on http://${gatewayConfig.HOST}:${new URL(gateway.url).port} (gateway and all workers ready)`);
}

// A bad configuration (or anything else that stops the boot) ends the process with one line.
await main().catch((err) => exitOnBootFailure('gleaner', err));
