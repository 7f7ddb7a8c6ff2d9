import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

/** A stand-in for target websites and document hosts: routes by path on 127.0.0.1. */
export async function startPageServer(routes: Record<string, RouteHandler>, fallback?: RouteHandler): Promise<{ url: string; close(): Promise<void>; hits: Record<string, number> }> {
  const hits: Record<string, number> = {};
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    hits[path] = (hits[path] ?? 0) + 1;
    const handler = routes[path] ?? fallback;
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>');
      return;
    }
    await handler(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export function html(body: string, head = ''): RouteHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);
  };
}
