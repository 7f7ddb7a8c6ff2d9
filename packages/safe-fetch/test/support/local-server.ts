import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface LocalServer {
  url: string;
  /** Requests and TCP connections received so far, to prove that a refusal sent nothing. */
  requests: number;
  connections: number;
  close(): Promise<void>;
}

/** A throwaway HTTP server on `host` (127.0.0.1, 127.0.0.2, ::1) with a route table; 404 otherwise. */
export async function serve(host: string, routes: Record<string, Handler>): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const state = { requests: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    const handler = routes[(req.url ?? '/').split('?')[0]];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<p>missing</p>');
  });
  server.on('connection', (s) => {
    state.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

/** Sends `total` bytes of `fill` in 1 MB writes, honouring backpressure, without Content-Length. */
export function streamBytes(res: http.ServerResponse, total: number, fill = 'a'): void {
  const chunk = Buffer.alloc(1024 * 1024, fill);
  let sent = 0;
  const pump = (): void => {
    while (sent < total) {
      const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += part.length;
      if (!res.write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => {
    sent = total;
  });
  pump();
}
