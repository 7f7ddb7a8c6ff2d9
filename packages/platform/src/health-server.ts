import http from 'node:http';
import { renderMetrics } from './metrics.js';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/**
 * Liveness and readiness for worker services (`/healthz`, `/readyz`) and Prometheus `/metrics`. Port 0 or an unset port disables it for services started inside one process.
 */
export async function startHealthServer(
  port: number,
  isReady: () => boolean | Promise<boolean>,
  extraRoutes: Record<string, () => Promise<{ contentType: string; body: string }>> = { '/metrics': renderMetrics },
): Promise<HealthServer> {
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (path === '/readyz') {
      const ready = await Promise.resolve(isReady()).catch(() => false);
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready }));
    } else if (path && extraRoutes[path]) {
      // A rejection here would be unhandled (and end the process): answer 500 instead.
      const out = await extraRoutes[path]().catch(() => null);
      if (out) res.writeHead(200, { 'content-type': out.contentType }).end(out.body);
      else res.writeHead(500).end();
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '0.0.0.0', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
