import express, { type Express } from 'express';
import helmet from 'helmet';
import { newRequestId, renderMetrics } from '@gleaner/platform';
import type { Backlogs } from '@gleaner/queues';
import { Sealer } from '@gleaner/store';
import type { McpHttpSessions } from '@gleaner/mcp-server';
import type { GatewayDeps } from './deps.js';
import { accessLog } from './middleware/access-log.js';
import { setRequestId } from './middleware/context.js';
import { httpMetrics } from './middleware/http-metrics.js';
import { docsRoutes } from './openapi/docs-routes.js';
import { accountRouter } from './routes/account.js';
import { botWebhookRouter } from './routes/bot-webhook.js';
import { consoleRoutes } from './routes/console.js';
import { documentsRouter } from './routes/documents.js';
import { mcpRouter, type McpSessionOwner, type OwnToolReads } from './routes/mcp.js';
import { v1ScraperRouter } from './routes/v1-scraper.js';
import { webScraperRouter } from './routes/web-scraper.js';

export interface AppOptions {
  isReady: () => Promise<boolean>;
  /** Serves `/mcp` when given (the running gateway's; a bare app for documentation tests has none). */
  mcpSessions?: McpHttpSessions<McpSessionOwner>;
  /** Serves `/metrics/backlog` when given: every queue's unfinished jobs, for autoscalers (KEDA). */
  backlogs?: () => Promise<Backlogs>;
  /** Recognises the status reads of those sessions' tools (counted against no rate limit). */
  ownToolReads?: OwnToolReads;
}

export function createGatewayApp(deps: GatewayDeps, options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are never fetched conditionally; hashing every body for an ETag cost ~4 % of a
  // status read's CPU (bench/load.ts profile).
  app.disable('etag');
  app.set('trust proxy', false);
  app.use(helmet());
  app.use(httpMetrics);
  app.use(accessLog(deps.logger));
  // Every response carries X-Request-ID; submit and status routes replace it with the request's id.
  app.use((_req, res, next) => {
    setRequestId(res, newRequestId());
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/metrics', async (_req, res) => {
    const metrics = await renderMetrics();
    res.type(metrics.contentType).send(metrics.body);
  });
  // Public like /metrics (counts, no content): KEDA's metrics-api scaler reads it, e.g. the
  // value at `services.scraper-worker`. 503 while Redis cannot answer: a scaler keeps its size.
  const backlogs = options.backlogs;
  if (backlogs) {
    app.get('/metrics/backlog', async (_req, res) => {
      const answer = await backlogs().catch(() => null);
      if (answer) res.json(answer);
      else res.status(503).json({ error: 'Redis is not answering' });
    });
  }
  app.get('/readyz', async (_req, res) => {
    const ready = await options.isReady().catch(() => false);
    res.status(ready ? 200 : 503).json({ ready });
  });

  if (options.ownToolReads) app.use(options.ownToolReads.recognise);
  app.use(docsRoutes());
  app.use(consoleRoutes(deps.logger));
  app.use('/web-scrapper', webScraperRouter(deps));
  app.use('/v1/llm-web-scrapper', v1ScraperRouter(deps));
  app.use('/documents', documentsRouter(deps));
  app.use('/bot-webhook', botWebhookRouter(deps, new Sealer(deps.config.GLEANER_SECRET, 'bot-token')));
  app.use('/account', accountRouter(deps));
  if (options.mcpSessions) app.use('/mcp', mcpRouter(deps, options.mcpSessions));

  app.use((_req, res) => {
    res.status(404).json({ error: 'E002: No such endpoint' });
  });
  return app;
}
