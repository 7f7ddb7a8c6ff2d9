import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * A local website to crawl (issue 40), built so that every trap a crawler falls into is in it:
 *
 * - `/docs/`: 5 sections of 20 pages, each with a detail page one level deeper (206 pages), every
 *   page linking to its neighbours, its section and the home page (link cycles), and to its next
 *   sibling in six spellings (fragment, trailing slash, `index.html`, upper-case scheme and host,
 *   `utm_*` parameters, `..` segments), which a crawler must fetch once;
 * - `/blog/`: 50 posts linked with their query in two orders (`?a=1&b=2`, `?b=2&a=1`);
 * - `/old/<n>`: 301 redirects to `/blog/post-<n>`; `/alias/<n>`: the same post, its
 *   `<link rel=canonical>` pointing at `/blog/post-<n>`; `/loop`: a redirect to itself;
 * - `/private/`: disallowed by robots.txt (10 pages linked from the home page);
 * - `/orphan/<n>`: 20 pages only the sitemaps list (a sitemap index, a plain sitemap and a gzip
 *   one, named by robots.txt's `Sitemap:` lines);
 * - `/slow/<n>`: answer after `slowMs`; `/busy`: 429 with `Retry-After: 1` twice, then the page;
 *   `/hang`: never answers; `/files/report.pdf`: a file link; `/app`: a client-rendered shell;
 *   `/broken`: 404.
 *
 * The server counts requests per path (query included) and keeps each request's time and
 * User-Agent, so tests can check that no page was fetched twice and that delays were kept.
 * `bulkUrls` (the memory test) adds a second sitemap index listing that many `/bulk/<n>` pages.
 */
export interface CrawlSiteOptions {
  /** robots.txt `Crawl-delay` for every agent, seconds. */
  crawlDelaySeconds?: number;
  slowMs?: number;
  /** `/bulk/<n>` pages listed by the sitemaps (0: none). */
  bulkUrls?: number;
  /** Leave out the robots.txt `Sitemap:` lines (the crawler then tries /sitemap.xml). */
  noSitemapLines?: boolean;
  /** Every page answers after this long (a crawl that lasts long enough to be interrupted). */
  pageDelayMs?: number;
  /** Sections of `/docs/` (default DOC_SECTIONS; the crawl benchmark asks for more). */
  sections?: number;
}

export interface CrawlSite {
  url: string;
  /** Requests per path with its query, as received. */
  hits: Map<string, number>;
  requests: Array<{ path: string; at: number; userAgent: string; status: number }>;
  /** Requests answered so far, by the page's path without its query. */
  pageHits(path: string): number;
  close(): Promise<void>;
}

export const DOC_SECTIONS = 5;
export const DOC_PAGES = 20;
export const BLOG_POSTS = 50;
export const ORPHANS = 20;
export const PRIVATE_PAGES = 10;
export const SLOW_PAGES = 5;

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><nav><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/blog/">Blog</a></nav><main><article><h1>${title}</h1>${body}</article></main><footer><a href="mailto:team@example.com">Mail us</a> <a href="https://elsewhere.example/">Elsewhere</a></footer></body></html>`;

const para = (topic: string) =>
  `<p>This page explains ${topic} in enough words to be an article: what it is, why it matters, and how the pieces fit together when a reader follows the guide from start to end.</p><p>A second paragraph about ${topic} adds detail, so that the extractor has real prose to keep and the markdown has more than a heading.</p>`;

export async function startCrawlSite(options: CrawlSiteOptions = {}): Promise<CrawlSite> {
  const hits = new Map<string, number>();
  const pathHits = new Map<string, number>();
  const requests: CrawlSite['requests'] = [];
  const busyCount = { n: 0 };
  const sockets = new Set<import('node:net').Socket>();
  let origin = '';
  const sections = options.sections ?? DOC_SECTIONS;

  const docLinks = (s: number, p: number) => {
    const next = p + 1 < DOC_PAGES ? p + 1 : 0;
    const host = origin.replace('http://', '').toUpperCase();
    const nextPath = `/docs/s${s}/p${next}`;
    return [
      `<a href="/docs/s${s}/">Section ${s}</a>`,
      `<a href="/docs/s${s}/p${p}/detail">Detail</a>`,
      `<a href="${nextPath}">Next</a>`,
      `<a href="${nextPath}#top">Next (top)</a>`,
      `<a href="${nextPath}/">Next/</a>`,
      `<a href="${nextPath}/index.html">Next index</a>`,
      `<a href="HTTP://${host}${nextPath}">NEXT</a>`,
      `<a href="${nextPath}?utm_source=newsletter&utm_medium=email">Next (tracked)</a>`,
      `<a href="../s${s}/../s${s}/p${next}">Next (dots)</a>`,
      `<a href="/docs/s${s}/p${p > 0 ? p - 1 : DOC_PAGES - 1}">Previous</a>`,
      `<a href="/files/report.pdf">Report (PDF)</a>`,
    ].join(' ');
  };

  const sitemapPages = () =>
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[
      ...Array.from({ length: ORPHANS }, (_, n) => `/orphan/${n}`),
      ...Array.from({ length: sections }, (_, s) => `/docs/s${s}/p0`),
    ]
      .map((p) => `<url><loc>${origin}${p}</loc></url>`)
      .join('')}</urlset>`;
  const sitemapBlog = () => `${Array.from({ length: BLOG_POSTS }, (_, n) => `${origin}/blog/post-${n}?a=1&amp;b=2`).map((u) => `<url><loc>${u}</loc></url>`).join('')}`;
  const bulkSitemap = (part: number, size: number) =>
    `<?xml version="1.0"?><urlset>${Array.from({ length: size }, (_, i) => `<url><loc>${origin}/bulk/${part * 50_000 + i}</loc></url>`).join('')}</urlset>`;

  const route = (path: string, query: string, req: http.IncomingMessage, res: http.ServerResponse): void | 'hang' => {
    const send = (status: number, body: string | Buffer, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers }).end(body);
    };
    let m: RegExpExecArray | null;
    if (path === '/robots.txt') {
      const lines = ['User-agent: *', 'Disallow: /private/', ...(options.crawlDelaySeconds ? [`Crawl-delay: ${options.crawlDelaySeconds}`] : []), ''];
      if (!options.noSitemapLines) lines.push(`Sitemap: ${origin}/sitemap_index.xml`, ...(options.bulkUrls ? [`Sitemap: ${origin}/bulk_index.xml`] : []));
      return send(200, lines.join('\n'), 'text/plain');
    }
    if (path === '/sitemap_index.xml' || (options.noSitemapLines && path === '/sitemap.xml')) {
      return send(200, `<?xml version="1.0"?><sitemapindex><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${origin}/sitemap-blog.xml.gz</loc></sitemap></sitemapindex>`, 'application/xml');
    }
    if (path === '/sitemap-pages.xml') return send(200, sitemapPages(), 'application/xml');
    if (path === '/sitemap-blog.xml.gz') return send(200, zlib.gzipSync(`<?xml version="1.0"?><urlset>${sitemapBlog()}</urlset>`), 'application/gzip');
    if (path === '/bulk_index.xml' && options.bulkUrls) {
      const parts = Math.ceil(options.bulkUrls / 50_000);
      return send(200, `<?xml version="1.0"?><sitemapindex>${Array.from({ length: parts }, (_, i) => `<sitemap><loc>${origin}/bulk-${i}.xml.gz</loc></sitemap>`).join('')}</sitemapindex>`, 'application/xml');
    }
    if ((m = /^\/bulk-(\d+)\.xml\.gz$/.exec(path)) && options.bulkUrls) {
      const part = Number(m[1]);
      return send(200, zlib.gzipSync(bulkSitemap(part, Math.min(50_000, options.bulkUrls - part * 50_000))), 'application/gzip');
    }
    if ((m = /^\/bulk\/(\d+)$/.exec(path))) return send(200, page(`Bulk ${m[1]}`, para(`bulk page ${m[1]}`)));
    if (path === '/') {
      const privateLinks = Array.from({ length: PRIVATE_PAGES }, (_, n) => `<a href="/private/p${n}">Private ${n}</a>`).join(' ');
      const slowLinks = Array.from({ length: SLOW_PAGES }, (_, n) => `<a href="/slow/${n}">Slow ${n}</a>`).join(' ');
      const extra = ['/old/0', '/old/1', '/alias/2', '/alias/3', '/loop', '/busy', '/hang', '/app', '/broken', '/files/report.pdf'].map((p) => `<a href="${p}">${p}</a>`).join(' ');
      return send(200, page('Home', `${para('the whole site')}<p>${privateLinks}</p><p>${slowLinks}</p><p>${extra}</p>`));
    }
    if (path === '/docs' || path === '/docs/') return send(200, page('Docs', `${para('the documentation')}${Array.from({ length: sections }, (_, s) => `<a href="/docs/s${s}/">Section ${s}</a>`).join(' ')}`));
    if ((m = /^\/docs\/s(\d+)\/?$/.exec(path)) && Number(m[1]) < sections) {
      const s = Number(m[1]);
      return send(200, page(`Section ${s}`, `${para(`section ${s}`)}${Array.from({ length: DOC_PAGES }, (_, p) => `<a href="/docs/s${s}/p${p}">Page ${p}</a>`).join(' ')} <a href="/docs/">Up</a>`));
    }
    if ((m = /^\/docs\/s(\d+)\/p(\d+)(\/|\/index\.html)?$/.exec(path)) && Number(m[1]) < sections && Number(m[2]) < DOC_PAGES) {
      const [s, p] = [Number(m[1]), Number(m[2])];
      return send(200, page(`Section ${s} page ${p}`, `${para(`page ${p} of section ${s}`)}<p>${docLinks(s, p)}</p>`));
    }
    if ((m = /^\/docs\/s(\d+)\/p(\d+)\/detail$/.exec(path)) && Number(m[1]) < sections && Number(m[2]) < DOC_PAGES) {
      return send(200, page(`Detail ${m[1]}.${m[2]}`, `${para(`the details of page ${m[2]}`)}<a href="/docs/s${m[1]}/p${m[2]}">Back</a>`));
    }
    if (path === '/blog' || path === '/blog/') {
      const links = Array.from({ length: BLOG_POSTS }, (_, n) => `<a href="/blog/post-${n}?${n % 2 ? 'b=2&a=1' : 'a=1&b=2'}">Post ${n}</a>`).join(' ');
      return send(200, page('Blog', `${para('the blog')}${links}`));
    }
    if ((m = /^\/blog\/post-(\d+)$/.exec(path)) && Number(m[1]) < BLOG_POSTS) {
      const n = Number(m[1]);
      return send(200, page(`Post ${n}`, `${para(`post ${n}`)}<a href="/blog/post-${(n + 1) % BLOG_POSTS}?b=2&a=1">Next post</a> <a href="/blog/">All posts</a>`, `<link rel="canonical" href="${origin}/blog/post-${n}?a=1&amp;b=2">`));
    }
    if ((m = /^\/old\/(\d+)$/.exec(path))) return send(301, '', 'text/html', { location: `/blog/post-${m[1]}?a=1&b=2` });
    if ((m = /^\/alias\/(\d+)$/.exec(path))) {
      return send(200, page(`Post ${m[1]}`, para(`post ${m[1]}`), `<link rel="canonical" href="${origin}/blog/post-${m[1]}?a=1&amp;b=2">`));
    }
    if (path === '/loop') return send(302, '', 'text/html', { location: '/loop' });
    if ((m = /^\/private\/p(\d+)$/.exec(path))) return send(200, page(`Private ${m[1]}`, para('a private page')));
    if ((m = /^\/orphan\/(\d+)$/.exec(path)) && Number(m[1]) < ORPHANS) return send(200, page(`Orphan ${m[1]}`, `${para(`orphan ${m[1]}`)}<a href="/">Home</a>`));
    if ((m = /^\/slow\/(\d+)$/.exec(path))) {
      setTimeout(() => send(200, page(`Slow ${m![1]}`, para('patience'))), options.slowMs ?? 800);
      return;
    }
    if (path === '/busy') {
      if (busyCount.n++ < 2) return send(429, 'slow down', 'text/plain', { 'retry-after': '1' });
      return send(200, page('Busy', para('a page that was busy')));
    }
    if (path === '/hang') return 'hang';
    if (path === '/app') return send(200, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>document.getElementById('root').innerHTML = '<h1>Rendered</h1><p>Only a browser sees this text.</p>';</script></body></html>`);
    if (path === '/files/report.pdf') return send(200, '%PDF-1.4 fake', 'application/pdf');
    send(404, page('Not found', '<p>No such page.</p>'));
  };

  const server = http.createServer((req, res) => {
    const raw = req.url ?? '/';
    const [path, query = ''] = raw.split('?');
    hits.set(raw, (hits.get(raw) ?? 0) + 1);
    pathHits.set(path, (pathHits.get(path) ?? 0) + 1);
    const entry = { path: raw, at: Date.now(), userAgent: String(req.headers['user-agent'] ?? ''), status: 0 };
    requests.push(entry);
    res.once('finish', () => (entry.status = res.statusCode));
    if (options.pageDelayMs && path !== '/robots.txt') setTimeout(() => route(path, query, req, res), options.pageDelayMs);
    else route(path, query, req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    hits,
    requests,
    pageHits: (path) => pathHits.get(path) ?? 0,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
