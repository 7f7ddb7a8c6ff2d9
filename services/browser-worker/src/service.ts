import fs from 'node:fs';
import { browserMemory, browserRefusedConnections, createLogger, createRedis, deploymentRedis, onMetricsScrape, type Logger } from '@gleaner/platform';
import { renderQueue } from '@gleaner/queues';
import { RenderedPageStore } from '@gleaner/store';
import { accountCapFrom, serveWorkerService, WorkerRegistry, type RunningService } from '@gleaner/worker-runtime';
import type { BrowserWorkerConfig } from './config.js';
import { FilteringProxy } from './filtering-proxy.js';
import { ManagedBrowser } from './managed-browser.js';
import { createRenderProcessor } from './processors/render.js';
import { blockingFlags } from './render-page.js';

export type { RunningService } from '@gleaner/worker-runtime';

/** SPEC: the current scraper reads pages up to 10 MB; a rendered page is held to the same. */
export const RENDERED_MAX_BYTES = 10 * 1024 * 1024;

/** What to do about a missing Chromium: said by the browser-worker's boot failure and by `pnpm start`. */
export const CHROMIUM_INSTALL_HINT = "install Debian's chromium package (apt-get install chromium) or point CHROMIUM_PATH at a Chromium binary";

/** Why no Chromium can be launched from `chromiumPath` ("no Chromium at /usr/bin/chromium (CHROMIUM_PATH)"), or null when one can. */
export function missingChromium(chromiumPath: string): string | null {
  try {
    fs.accessSync(chromiumPath, fs.constants.X_OK);
    return null;
  } catch {
    return `no Chromium at ${chromiumPath} (CHROMIUM_PATH)`;
  }
}

export async function startBrowserWorker(config: BrowserWorkerConfig, logger: Logger = createLogger('browser-worker', config.LOG_LEVEL)): Promise<RunningService> {
  // Chromium itself starts with the first page; a missing one is a boot failure, not a failed job
  // (`pnpm start` checks first and runs without this service instead).
  const missing = missingChromium(config.CHROMIUM_PATH);
  if (missing) throw new Error(`${missing}: ${CHROMIUM_INSTALL_HINT}`);
  const connection = deploymentRedis(config);
  const redis = createRedis(connection.target, 'worker', 'browser-worker', logger);
  const pageProxy = await FilteringProxy.start({ allowPrivateNetworks: config.GLEANER_ALLOW_PRIVATE_NETWORKS });
  pageProxy.on('refused', () => browserRefusedConnections.inc());
  // Chromium's own traffic (updates, sync, safe browsing) goes to a proxy that refuses it all.
  const sink = await FilteringProxy.start({ allowPrivateNetworks: false }, { refuseAll: true });
  const browser = new ManagedBrowser({
    executablePath: config.CHROMIUM_PATH,
    launchProxy: sink.url,
    extraArgs: blockingFlags(config.BROWSER_BLOCKED_RESOURCES),
    recycleAfterPages: config.BROWSER_RECYCLE_PAGES,
    memoryLimitMb: config.BROWSER_MEMORY_LIMIT_MB,
    idleMs: config.BROWSER_IDLE_MS,
    logger,
  });
  const stopSampling = onMetricsScrape(async () => browserMemory.set(browser.memory().pssMb * 1024 * 1024));

  const registry = new WorkerRegistry(connection, logger, { lockDuration: config.WORKER_LOCK_DURATION_MS, stalledInterval: config.WORKER_STALLED_INTERVAL_MS });
  registry.register(
    renderQueue,
    createRenderProcessor({
      browser,
      pageProxy,
      renderedPages: new RenderedPageStore(redis, connection.prefix),
      settings: { blockedResources: new Set(config.BROWSER_BLOCKED_RESOURCES), settleMs: config.BROWSER_SETTLE_MS, scrollSteps: config.BROWSER_SCROLL_STEPS, maxBytes: RENDERED_MAX_BYTES },
      logger,
    }),
    { concurrency: config.BROWSER_CONCURRENCY, accountCap: accountCapFrom(config.ACCOUNT_MAX_CONCURRENT_JOBS, config.BROWSER_CONCURRENCY) },
  );
  return serveWorkerService({
    name: 'browser-worker',
    registry,
    redis,
    config,
    logger,
    resources: [
      { name: 'browser', run: () => browser.close() },
      { name: 'proxies', run: () => Promise.all([pageProxy.close(), sink.close()]) },
      { name: 'metrics sampler', run: stopSampling },
    ],
  });
}
