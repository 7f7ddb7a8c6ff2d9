import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { guardedAgents, hostOf, isAddressRefusal, toFetchError, type AddressPolicy } from '@gleaner/safe-fetch';
import { cachingLookup } from './dns-cache.js';

/** A connection the proxy refused, for the renderer (was it the page itself?) and the metrics. */
export interface ProxyRefusal {
  host: string;
  port: number;
}

/** Request headers that concern one hop (RFC 9110 §7.6.1), not the origin server. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Marks the proxy's own refusals, which Chromium would otherwise show as the server's answer. */
export const REFUSED_HEADER = 'x-gleaner-proxy';

function withoutHopByHop(rawHeaders: string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  // Headers a Connection header names are hop-by-hop too.
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'connection') for (const name of rawHeaders[i + 1].split(',')) named.add(name.trim().toLowerCase());
  }
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (!named.has(rawHeaders[i].toLowerCase())) kept.push(rawHeaders[i], rawHeaders[i + 1]);
  return kept;
}

/** `host:port` of a CONNECT request (`[::1]:443` for IPv6), or null. */
function authorityOf(target: string | undefined): ProxyRefusal | null {
  const m = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(target ?? '');
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65535) return null;
  return { host: m[1].replace(/^\[(.*)\]$/, '$1'), port };
}

/**
 * The forward proxy every page connection of Chromium goes through (its contexts are told to use
 * it; QUIC and WebRTC are off, so nothing leaves another way). Each connection is judged by
 * safe-fetch's address policy on the address actually connected to, after resolving the name
 * here, so a URL check that DNS rebinding could fool is never the only check: plain-HTTP requests
 * (absolute-form) and tunnels (CONNECT: https, wss, ws) alike through safe-fetch's guarded agent
 * (one for the proxy's life: it pools nothing, keep-alive is off), names through a caching
 * resolver (dns-cache.ts). Anything that is not http(s) or a tunnel is refused.
 *
 * `refuseAll` makes a sink for the browser's own background traffic (its launch-level proxy):
 * nothing a page did not ask for leaves the worker.
 */
export class FilteringProxy extends EventEmitter<{ refused: [ProxyRefusal] }> {
  private readonly sockets = new Set<Duplex>();
  private readonly lookup: LookupFunction = cachingLookup();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly agent: http.Agent,
  ) {
    super();
  }

  static async start(policy: AddressPolicy, { refuseAll = false } = {}): Promise<FilteringProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new FilteringProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, guardedAgents(policy).http);
    server.on('connection', (socket) => proxy.track(socket));
    server.on('request', (req, res) => (refuseAll ? proxy.refuse(res, null) : proxy.forward(req, res)));
    server.on('connect', (req, socket: Socket, head) => (refuseAll ? socket.destroy() : proxy.tunnel(req, socket, head)));
    // Chromium tunnels websockets with CONNECT; an Upgrade in absolute form is not expected.
    server.on('upgrade', (_req, socket: Socket) => socket.destroy());
    return proxy;
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  private refuse(res: http.ServerResponse, target: ProxyRefusal | null): void {
    if (target) this.emit('refused', target);
    if (!res.headersSent) res.writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: 'refused', connection: 'close' });
    res.end('refused: the address is not allowed');
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400, { connection: 'close' }).end();
    }
    if (url.protocol !== 'http:') return void res.writeHead(400, { connection: 'close' }).end();
    const target = { host: hostOf(url), port: Number(url.port || 80) };
    const upstream = http.request({
      host: target.host,
      port: target.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: withoutHopByHop(req.rawHeaders),
      setHost: false,
      agent: this.agent,
      lookup: this.lookup,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, withoutHopByHop(answer.rawHeaders));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (err) => {
      if (isAddressRefusal(err)) return this.refuse(res, target);
      if (res.headersSent) return void res.destroy();
      // The connection stays open for Chromium's next request: most of a page's failed hosts
      // (names that do not resolve) would otherwise cost it a new connection each.
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${toFetchError(err).message}`);
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  private tunnel(req: http.IncomingMessage, client: Socket, head: Buffer): void {
    const target = authorityOf(req.url);
    if (!target) return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    // The agent's connection: a literal IP judged before connecting, a name on every address it resolves to.
    const upstream = this.agent.createConnection({ host: target.host, port: target.port, lookup: this.lookup }) as Socket;
    this.track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (connected) return void client.destroy();
      const refused = isAddressRefusal(err);
      if (refused) this.emit('refused', target);
      client.end(refused ? `HTTP/1.1 403 Forbidden\r\n${REFUSED_HEADER}: refused\r\n\r\n` : 'HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
