import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@gleaner/platform';
import { extractPage } from '@gleaner/html-extract';
import { FilteringProxy } from '../src/filtering-proxy.js';
import { ManagedBrowser } from '../src/managed-browser.js';
import { blockingFlags, quietLeftMs, RenderFailure, renderPage, type RenderRequest, type RenderSettings } from '../src/render-page.js';
import { startPageServer } from '../../../tests/support/page-server.js';
import { RENDERING_FIXTURES, renderingFixtureRoutes } from '../../../tests/support/rendering-fixtures.js';
import { wordF1 } from '../../../tests/support/word-f1.js';
import { reportFigures } from '../../../tests/support/figures.js';

/**
 * The renderer on Debian's Chromium, without queues: each client-rendered fixture rendered and
 * put through the scraper's extraction (extractPage) gives its expected text.
 */
const settings: RenderSettings = { blockedResources: new Set(['image', 'media', 'font']), settleMs: 4_000, scrollSteps: 20, maxBytes: 10 * 1024 * 1024 };
let site: Awaited<ReturnType<typeof startPageServer>>;
let proxy: FilteringProxy;
let sink: FilteringProxy;
let browser: ManagedBrowser;

beforeAll(async () => {
  site = await startPageServer({
    ...renderingFixtureRoutes(),
    '/photo.png': (_q, s) => s.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10)),
    '/background.png': (_q, s) => s.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10)),
    '/face.woff2': (_q, s) => s.writeHead(200, { 'content-type': 'font/woff2' }).end(Buffer.alloc(10)),
    '/clip.mp4': (_q, s) => s.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.alloc(10)),
    '/with-image': (_q, s) =>
      s.writeHead(200, { 'content-type': 'text/html' }).end(`<style>@font-face { font-family: Face; src: url(/face.woff2); } body { font-family: Face; background: url(/background.png); }</style>
<p>An image: <img src="/photo.png" alt="photo"></p><video src="/clip.mp4" preload="auto" autoplay muted></video>`),
    '/endless': (_q, s) => {
      s.writeHead(200, { 'content-type': 'text/html' });
      s.write('<html><body><p>This page never finishes arriving.</p>');
      const timer = setInterval(() => s.write('<p>more</p>'), 300);
      s.on('close', () => clearInterval(timer));
    },
    // A web-font loader's fallback in the head (reveals the text after 3 s if the fonts never came), and a body script's own 1.2 s timer that fills the page in.
    '/head-fallback': (_q, s) =>
      s.writeHead(200, { 'content-type': 'text/html' }).end(`<html class="wf-loading"><head><script>setTimeout(() => { document.documentElement.className = 'wf-inactive'; }, 3000);</script></head>
<body><p>Arrived.</p><script>setTimeout(() => document.body.append('Filled in by a body timer.'), 1200);</script></body></html>`),
    // Busy until its load event (a slow async script fills it in), then a load handler queues more: a timer and a fetch.
    '/busy-until-load': (_q, s) =>
      s.writeHead(200, { 'content-type': 'text/html' }).end(`<p>Arrived.</p><script async src="/slow-filler.js"></script>
<script>addEventListener('load', () => {
  setTimeout(() => document.body.append('Inserted by a timer armed at load.'), 400);
  fetch('/note.txt').then((r) => r.text()).then((t) => document.body.append(t));
});</script>`),
    '/slow-filler.js': (_q, s) => void setTimeout(() => s.writeHead(200, { 'content-type': 'text/javascript' }).end("document.body.append('Filled in before load.');"), 300),
    '/note.txt': (_q, s) => void setTimeout(() => s.writeHead(200, { 'content-type': 'text/plain' }).end('Fetched at load.'), 300),
    '/missing': (_q, s) => s.writeHead(404, { 'content-type': 'text/html' }).end('<p>no</p>'),
    '/to-file': (_q, s) => s.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/reaches-out': (_q, s) =>
      s.writeHead(200, { 'content-type': 'text/html' }).end(`<p>Local page.</p><iframe src="file:///etc/passwd"></iframe><iframe src="chrome://version"></iframe>
<script>fetch('file:///etc/passwd').then((r) => r.text()).then((t) => document.body.append(t), () => {});
setTimeout(() => { location.href = 'file:///etc/passwd'; }, 50); setTimeout(() => { location.href = 'chrome://version'; }, 100);</script>`),
    '/download': (_q, s) => s.writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="x.bin"' }).end(Buffer.alloc(1000)),
  });
  proxy = await FilteringProxy.start({ allowPrivateNetworks: true });
  sink = await FilteringProxy.start({ allowPrivateNetworks: false }, { refuseAll: true });
  browser = new ManagedBrowser({ executablePath: '/usr/bin/chromium', launchProxy: sink.url, extraArgs: blockingFlags(settings.blockedResources), recycleAfterPages: 100, memoryLimitMb: 2000, idleMs: 60_000, logger: createLogger('browser-test', 'error') });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await sink?.close();
  await site?.close();
});

function render(request: RenderRequest) {
  return browser.withContext({ proxy: { server: proxy.url } }, (context) => renderPage(context, request, settings, []));
}

describe('client-rendered fixtures', () => {
  for (const [name, fixture] of Object.entries(RENDERING_FIXTURES)) {
    it(`${name}: rendered and extracted, word F1 >= 0.95 against its text`, async () => {
      const started = Date.now();
      const page = await render({ url: `${site.url}${fixture.path}`, timeoutMs: 30_000, waitForSelector: fixture.waitForSelector });
      const text = extractPage(page.html, page.finalUrl).text;
      const f1 = wordF1(text, fixture.expected);
      reportFigures(`${name}: F1 ${f1.toFixed(3)} in ${Date.now() - started} ms\n`);
      if (f1 < 0.95) reportFigures(`${text}\n`);
      expect(f1).toBeGreaterThanOrEqual(0.95);
      expect(page.statusCode).toBe(200);
    }, 40_000);
  }
});

describe('quiet wait', () => {
  it('ends two frames after a load event that nothing followed, even on a page busy until then', () => {
    expect(quietLeftMs({ activeSinceArrival: true, quietSinceLoadMs: 40, quietForMs: 40 })).toBeLessThanOrEqual(0);
    expect(quietLeftMs({ activeSinceArrival: true, quietSinceLoadMs: 10, quietForMs: 12 })).toBe(25);
    // Active after its load event: 100 ms without activity.
    expect(quietLeftMs({ activeSinceArrival: true, quietSinceLoadMs: -1, quietForMs: 40 })).toBe(60);
    // Nothing at all since DOMContentLoaded: two frames.
    expect(quietLeftMs({ activeSinceArrival: false, quietSinceLoadMs: -1, quietForMs: 10 })).toBe(25);
  });

  it('still waits for the timers and requests a load handler starts', async () => {
    const page = await render({ url: `${site.url}/busy-until-load`, timeoutMs: 10_000 });
    expect(page.html).toContain('Filled in before load.');
    expect(page.html).toContain('Inserted by a timer armed at load.');
    expect(page.html).toContain('Fetched at load.');
  });

  it("does not wait for a head script's fallback timeout, but does for a body script's timer", async () => {
    const page = await render({ url: `${site.url}/head-fallback`, timeoutMs: 10_000 });
    expect(page.html).toContain('Filled in by a body timer.');
    expect(page.html).toContain('class="wf-loading"'); // done before the fallback's 3 s
  });
});

describe('budget and failures', () => {
  it('ends a page that never finishes loading at its budget, naming it', async () => {
    const started = Date.now();
    const err = await render({ url: `${site.url}/endless`, timeoutMs: 2_000 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RenderFailure);
    expect([(err as RenderFailure).code, (err as Error).message]).toEqual(['E008', 'the page did not finish loading within its 2 s budget']);
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it('fails an HTTP error and an invalid selector with their own messages', async () => {
    await expect(render({ url: `${site.url}/missing`, timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'E008', message: 'target answered HTTP 404' });
    await expect(render({ url: `${site.url}/app-shell`, timeoutMs: 10_000, waitForSelector: 'div[' })).rejects.toMatchObject({ code: 'E009', message: "wait_for_selector 'div[' is not a valid CSS selector" });
  });

  it('refuses file:, chrome: and downloads', async () => {
    await expect(render({ url: `${site.url}/to-file`, timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'E008', message: expect.stringMatching(/^could not load the page \(net::ERR_/) });
    const page = await render({ url: `${site.url}/reaches-out`, timeoutMs: 10_000 });
    expect(page.finalUrl).toBe(`${site.url}/reaches-out`);
    expect(page.html).toContain('Local page.');
    expect(page.html).not.toMatch(/root:x:0|Chromium|Google/);
    await expect(render({ url: `${site.url}/download`, timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'E008', message: expect.stringMatching(/unsupported content type/) });
  });

  it('does not load images (CSS ones too), fonts or media', async () => {
    const resources = ['/photo.png', '/background.png', '/face.woff2', '/clip.mp4'];
    const before = resources.map((path) => site.hits[path] ?? 0);
    const page = await render({ url: `${site.url}/with-image`, timeoutMs: 10_000 });
    expect(page.html).toContain('/photo.png');
    expect(resources.map((path) => site.hits[path] ?? 0)).toEqual(before);
  });
});
