import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the site answered (or began to): which page, from which address, when. */
export interface Hit {
  path: string;
  from: string;
  at: number;
}

/**
 * The target website of the deploy test, on an address the test made (a Docker bridge's host
 * address, or the swarm bridge's): article pages that take as long as asked to answer
 * (`/page/<id>?delay=<ms>`), documents read in place from the shared corpus (`/file?path=`), and
 * a webhook receiver (`POST /hook`). It records every page request, so the test can tell which
 * container (or node) fetched a page and how many times.
 */
export class TargetSite {
  readonly hits: Hit[] = [];
  readonly hooks: unknown[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(host: string, files: Record<string, string> = {}): Promise<TargetSite> {
    let site!: TargetSite;
    const server = http.createServer((req, res) => site.answer(req, res, files));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, resolve);
    });
    site = new TargetSite(server, `http://${host}:${(server.address() as AddressInfo).port}`);
    server.on('connection', (s) => {
      site.sockets.add(s);
      s.on('close', () => site.sockets.delete(s));
    });
    return site;
  }

  /** URL of a page answered after `delayMs`. */
  page(id: string, delayMs = 0): string {
    return `${this.url}/page/${encodeURIComponent(id)}?delay=${delayMs}`;
  }

  /** Requests for one page, oldest first. */
  hitsOf(id: string): Hit[] {
    return this.hits.filter((h) => h.path === `/page/${encodeURIComponent(id)}`);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, files: Record<string, string>): void {
    const url = new URL(req.url ?? '/', this.url);
    const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    if (url.pathname.startsWith('/page/')) {
      this.hits.push({ path: url.pathname, from, at: Date.now() });
      const id = decodeURIComponent(url.pathname.slice('/page/'.length));
      const delay = Number(url.searchParams.get('delay') ?? 0);
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(
          `<!doctype html><html><head><title>Page ${id}</title></head><body><article><h1>Page ${id}</h1>` +
            `<p>This is the article of page ${id}, served by the deploy test's target site after ${delay} ms. ` +
            'It has enough words in one paragraph to be the main content of the page for the extractor.</p>' +
            `<p>A second paragraph of page ${id}, so that the text is plainly an article and not a list of links.</p></article></body></html>`,
        );
      }, delay);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === '/file') {
      const file = files[url.searchParams.get('name') ?? ''];
      if (!file) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': url.searchParams.get('type') ?? 'application/octet-stream' });
      createReadStream(file).pipe(res);
      return;
    }
    if (url.pathname === '/hook' && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hooks.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
        res.writeHead(200).end();
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>');
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
