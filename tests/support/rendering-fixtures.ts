import type { RouteHandler } from './page-server.js';

/**
 * Client-rendered pages written for the browser-worker's tests and bench, served by a local page
 * server. Each static answer is a shell (a mount node, a "Loading…" line, scripts); the text a
 * reader sees appears only once the page's scripts ran. `expected` is that text.
 */
export interface RenderingFixture {
  /** Path to request (may carry a #fragment: the hash-routed page). */
  path: string;
  /** Text of the rendered main content. */
  expected: string;
  /** Words of the shell, which the static page has. */
  shell: string;
  /** `wait_for_selector` the page needs, when it does. */
  waitForSelector?: string;
}

const paragraphs = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${topic} paragraph ${i + 1} explains how river gauges record water levels every fifteen minutes, why volunteers calibrate them each spring, and what the readings of station ${i + 11} told the valley council about floods in the year ${1990 + i}.`,
  );

const ARTICLE = { title: 'Measuring the Valley River', paragraphs: paragraphs('Article', 6) };
const GUIDE = { title: 'Field Guide to Gauge Stations', paragraphs: paragraphs('Guide', 5) };
const HOME = { title: 'Welcome to the river project', paragraphs: ['Choose a page from the menu to begin reading about the project.'] };
const TIMER = { title: 'Evening Flood Bulletin', paragraphs: paragraphs('Bulletin', 5) };
const SECTIONS = Array.from({ length: 5 }, (_, i) => ({ title: `Chapter ${i + 1} of the river log`, paragraphs: paragraphs(`Chapter ${i + 1}`, 2) }));
const SHADOW = { title: 'Gauge Station Cards', cards: paragraphs('Card', 4), slotted: 'Slotted note: the cards below come from the station registry and are updated nightly by the volunteers.' };
const REPORT = { title: 'Quarterly Discharge Report', paragraphs: paragraphs('Report', 5) };

const textOf = (block: { title: string; paragraphs: string[] }) => [block.title, ...block.paragraphs].join('\n');
const SHELL = 'Loading…';

function shellPage(title: string, script: string, body = `<div id="root"><p class="loading">${SHELL}</p></div>`): RouteHandler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="description" content="${title}"></head>
<body>${body}
<noscript>You need to enable JavaScript to run this app.</noscript>
<script>
const esc = (s) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
const articleHtml = (a) => '<article><h1>' + esc(a.title) + '</h1>' + a.paragraphs.map((p) => '<p>' + esc(p) + '</p>').join('') + '</article>';
${script}
</script></body></html>`);
  };
}

const json = (value: unknown): RouteHandler => (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));

export const RENDERING_FIXTURES: Record<string, RenderingFixture> = {
  appShell: { path: '/app-shell', expected: textOf(ARTICLE), shell: SHELL },
  hashRouted: { path: '/hash-routed#/guide', expected: textOf(GUIDE), shell: SHELL },
  timer: { path: '/timer', expected: textOf(TIMER), shell: SHELL },
  infiniteScroll: { path: '/infinite-scroll', expected: SECTIONS.map(textOf).join('\n'), shell: SHELL },
  shadowDom: { path: '/shadow-dom', expected: [SHADOW.title, SHADOW.slotted, ...SHADOW.cards].join('\n'), shell: SHELL },
  waitForSelector: { path: '/late-report', expected: textOf(REPORT), shell: 'Preparing the report', waitForSelector: '#report article' },
};

/** Routes of every fixture (and the JSON they fetch), for startPageServer. */
export function renderingFixtureRoutes(): Record<string, RouteHandler> {
  return {
    // An app shell filled from a JSON fetch once the page has loaded.
    '/app-shell': shellPage(ARTICLE.title, `fetch('/api/article.json').then((r) => r.json()).then((a) => { document.getElementById('root').innerHTML = articleHtml(a); });`),
    '/api/article.json': json(ARTICLE),
    // A hash router: #/guide and #/ render different views, from JSON.
    '/hash-routed': shellPage(GUIDE.title, `
const views = { '#/guide': '/api/guide.json', '#/': '/api/home.json' };
const route = () => fetch(views[location.hash] || views['#/']).then((r) => r.json()).then((a) => { document.getElementById('root').innerHTML = articleHtml(a); });
addEventListener('hashchange', route); route();`),
    '/api/guide.json': json(GUIDE),
    '/api/home.json': json(HOME),
    // Content inserted by a 1.5 s timer, no request involved.
    '/timer': shellPage(TIMER.title, `const bulletin = ${JSON.stringify(TIMER)}; setTimeout(() => { document.getElementById('root').innerHTML = articleHtml(bulletin); }, 1500);`),
    // Infinite scroll: each chapter is fetched when a sentinel below the last one comes into view;
    // chapters are tall, so only scrolling brings the next one in.
    '/infinite-scroll': shellPage(SECTIONS[0].title, `
const root = document.getElementById('root');
const sentinel = document.createElement('div'); sentinel.id = 'sentinel'; sentinel.style.height = '10px';
let next = 1, busy = false;
const load = () => { if (busy || next > ${SECTIONS.length}) return; busy = true;
  fetch('/api/chapter/' + next).then((r) => r.json()).then((c) => {
    if (next === 1) root.innerHTML = '';
    const s = document.createElement('section'); s.style.minHeight = '1400px'; s.innerHTML = articleHtml(c); root.appendChild(s); next++; busy = false;
    root.appendChild(sentinel);
  }); };
new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && load()).observe(sentinel);
root.appendChild(sentinel);`),
    ...Object.fromEntries(SECTIONS.map((s, i) => [`/api/chapter/${i + 1}`, json(s)])),
    // Content in open shadow roots of custom elements, with a slotted light-DOM note.
    '/shadow-dom': shellPage(SHADOW.title, `
const cards = ${JSON.stringify(SHADOW.cards)};
customElements.define('station-card', class extends HTMLElement { connectedCallback() { const r = this.attachShadow({ mode: 'open' }); r.innerHTML = '<p>' + esc(this.dataset.text) + '</p>'; } });
customElements.define('station-board', class extends HTMLElement { connectedCallback() { const r = this.attachShadow({ mode: 'open' });
  r.innerHTML = '<article><h1>${SHADOW.title}</h1><p class="note"><slot name="note"></slot></p><div class="cards"></div></article>';
  for (const text of cards) { const c = document.createElement('station-card'); c.dataset.text = text; r.querySelector('.cards').appendChild(c); } } });
document.getElementById('root').innerHTML = '<station-board><span slot="note">${SHADOW.slotted}</span></station-board>';`),
    // The report arrives 6 s after load, longer than any wait for a page to settle: only
    // wait_for_selector brings it in.
    '/late-report': shellPage(REPORT.title, `setTimeout(() => { document.getElementById('root').innerHTML = '<div id="report">' + articleHtml(${JSON.stringify(REPORT)}) + '</div>'; }, 6000);`, '<div id="root"><p>Preparing the report…</p></div>'),
  };
}
