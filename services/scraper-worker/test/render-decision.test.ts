import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decideRendering } from '../src/render-decision.js';
import { startPageServer } from '../../../tests/support/page-server.js';
import { REPO_ROOT } from '../../../tests/support/processes.js';
import { RENDERING_FIXTURES, renderingFixtureRoutes } from '../../../tests/support/rendering-fixtures.js';
import { reportFigures } from '../../../tests/support/figures.js';

/**
 * `render_js: "auto"` decides on the static HTML. It must leave static pages alone (at least 97 %
 * of the real pages of both developer corpora: those are answered without the browser, so with
 * the text they had before) and send client-rendered shells to the browser.
 */
const CORPORA = path.resolve(REPO_ROOT, '../shared/corpus');
const PAGE_URL = 'http://fakehost/test/page.html';

function corpusPages(corpus: 'web' | 'web-annotated'): Array<{ name: string; html: string }> {
  const dir = path.join(CORPORA, corpus);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'MANIFEST.json'), 'utf8')) as { pages?: Array<{ folder: string; kind: string }> };
  const folders =
    corpus === 'web'
      ? manifest.pages!.filter((p) => p.kind === 'real-site-capture').map((p) => p.folder)
      : fs.readdirSync(dir).filter((f) => fs.existsSync(path.join(dir, f, 'source.html')));
  return folders.map((name) => ({ name, html: fs.readFileSync(path.join(dir, name, 'source.html'), 'utf8') }));
}

describe('real pages stay static', () => {
  for (const corpus of ['web', 'web-annotated'] as const) {
    it(`${corpus}: at least 97 % of its real pages are not rendered`, () => {
      const pages = corpusPages(corpus);
      expect(pages.length).toBeGreaterThan(corpus === 'web' ? 90 : 650);
      const rendered = pages.map((p) => ({ name: p.name, ...decideRendering(p.html, PAGE_URL) })).filter((d) => d.render);
      const staticShare = 1 - rendered.length / pages.length;
      reportFigures(`${corpus}: ${pages.length - rendered.length} of ${pages.length} pages static (${(staticShare * 100).toFixed(1)} %)${rendered.map((r) => `\n  rendered: ${r.name} (${r.reason})`).join('')}\n`);
      expect(staticShare).toBeGreaterThanOrEqual(0.97);
    });
  }
});

describe('client-rendered shells go to the browser', () => {
  let site: Awaited<ReturnType<typeof startPageServer>>;
  beforeAll(async () => {
    site = await startPageServer(renderingFixtureRoutes());
  });
  afterAll(() => site?.close());

  it('every rendering fixture', async () => {
    for (const [name, fixture] of Object.entries(RENDERING_FIXTURES)) {
      const url = `${site.url}${fixture.path}`;
      const html = await (await fetch(url)).text();
      expect({ name, ...decideRendering(html, url) }).toMatchObject({ name, render: true });
    }
  });

  const article = `<article><h1>Title</h1>${'<p>Static article text with plenty of words in every sentence of the paragraph here.</p>'.repeat(20)}</article>`;
  const cases: Array<[string, string, boolean, RegExp]> = [
    ['a create-react-app shell', '<html><head><script defer src="/static/js/main.js"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>', true, /words of text beside scripts/],
    ['an Angular shell', `<html><body><app-root></app-root>${'<script src="/x.js"></script>'.repeat(3)}</body></html>`, true, /words of text beside scripts/],
    ['a thin page with a JavaScript notice', `<html><body><nav>${'Home About Products Contact Careers Press '.repeat(6)}</nav><noscript>This site requires JavaScript.</noscript><script>boot()</script></body></html>`, true, /noscript/],
    ['a thin page carrying its content as state', `<html><body><div id="__next"><h1>Shop</h1>${'<a href="/c">Category link</a> '.repeat(20)}</div><script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { items: Array.from({ length: 400 }, (_, i) => ({ id: i, name: `item ${i}`, text: 'description text' })) } })}</script></body></html>`, true, /state blob|mount node/],
    ['a hash-routed app with a navigation', `<html><body><div id="app"><nav>${'Menu entry '.repeat(40)}</nav></div><script src="/app.js"></script></body></html>`, true, /hash route/],
    ['a static article with analytics', `<html><body>${article}<script>ga('send')</script><script src="//t.example/x.js"></script></body></html>`, false, /static text/],
    ['a server-rendered Next.js article', `<html><body><div id="__next">${article}</div><script id="__NEXT_DATA__" type="application/json">{"props":{"page":1}}</script></body></html>`, false, /static text/],
    ['a short page without scripts', '<html><body><p>Gone fishing.</p></body></html>', false, /no scripts/],
    // Read from the start until enough words are found: a 9 MB article is judged on its head.
    ['a 9 MB article with a script', `<html><body><script src="/a.js"></script>${'<p>Paragraph after paragraph of the report, with <a href="/x">links</a>.</p>'.repeat(120_000)}</body></html>`, false, /^at least \d+ words of static text$/],
    // A slice that ends inside a script block does not count the script's code as text.
    ['a shell whose inline script outgrows the first slice', `<html><body><div id="root"></div><script>${'var state = "words words words words"; '.repeat(4_000)}</script><p>Loading the app</p></body></html>`, true, /3 words of text beside scripts/],
  ];
  for (const [name, html, render, reason] of cases) {
    it(`${name}: ${render ? 'rendered' : 'static'}`, () => {
      const url = name.includes('hash') ? 'https://example.com/#/products/42' : 'https://example.com/page';
      const decision = decideRendering(html, url);
      expect(decision.render).toBe(render);
      expect(decision.reason).toMatch(reason);
    });
  }
});
