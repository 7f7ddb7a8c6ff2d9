import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodePath from 'node:path';

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

/** The files under `root`, by their path below it (URL-encoded); 404 for anything else, or outside it. */
export function filesUnder(root: string): RouteHandler {
  return (req, res) => {
    const file = nodePath.join(root, decodeURIComponent((req.url ?? '/').slice(1)));
    if (!file.startsWith(root) || !fs.existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
  };
}

export function html(body: string, head = ''): RouteHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`);
  };
}

export interface StreamedBody {
  handler: RouteHandler;
  /**
   * The last request's response: its framing (chunked, no Content-Length), bytes handed to the
   * socket, and whether it was sent in full or cut by the client.
   */
  last: { chunkedEncoding: boolean; contentLength: boolean; sent: number; closed: boolean; finished: boolean };
}

/**
 * A body of `totalBytes` streamed in 64 KB chunks without Content-Length (chunked transfer
 * encoding), only as fast as the client reads: a client learns its size by counting. With
 * `keepOpen` the response is never ended after the last byte, so only a client that stops at its
 * own limit gets anywhere before its timeout.
 */
export function streamedBody(totalBytes: number, { contentType = 'application/octet-stream', keepOpen = false } = {}): StreamedBody {
  const chunk = Buffer.alloc(64 * 1024, 'the quick brown fox jumps over the lazy dog.\n');
  const fresh = (): StreamedBody['last'] => ({ chunkedEncoding: false, contentLength: false, sent: 0, closed: false, finished: false });
  const body: StreamedBody = {
    last: fresh(),
    handler: (_req, res) =>
      new Promise<void>((resolve) => {
        const state = fresh();
        body.last = state;
        res.on('close', () => {
          state.closed = true;
          state.finished = res.writableFinished;
          resolve();
        });
        res.writeHead(200, { 'content-type': contentType });
        state.chunkedEncoding = res.chunkedEncoding;
        state.contentLength = res.hasHeader('content-length');
        const pump = () => {
          while (state.sent < totalBytes && !res.destroyed) {
            const n = Math.min(chunk.length, totalBytes - state.sent);
            state.sent += n;
            if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
          }
          if (!res.destroyed && !keepOpen) res.end();
        };
        pump();
      }),
  };
  return body;
}
