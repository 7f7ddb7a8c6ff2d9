/**
 * The measurements behind html-extract's two deviations from the design card (README, design
 * notes), over the corpus's real pages, in one run:
 *   1. parser    jsdom (the card's) against linkedom (ours): parse + Readability per page, on the
 *                same prepared HTML, and whether Readability finds the same text on both;
 *   2. markdown  node-html-markdown (the card's) against our renderer (linkedom parse + one walk):
 *                on the corpus articles, and on one article at growing sizes, to show how each
 *                grows with the input; plus what each writes for tables, code and links.
 * Run: pnpm bench:html-choices (node --import tsx bench/html-design-choices.ts)
 */
import os from 'node:os';
import { JSDOM, VirtualConsole } from 'jsdom';
import { parseHTML } from 'linkedom';
import { Readability } from '@mozilla/readability';
import { NodeHtmlMarkdown } from 'node-html-markdown';
import { prepareHtml, renderMarkdown } from '@gleaner/html-extract';
import { CORPUS_PAGE_URL, htmlToText, realSitePages } from '../tests/support/web-corpus.js';
import { wordF1 } from '../tests/support/word-f1.js';

const MIB = 1024 * 1024;
const pages = realSitePages();
const pad = (value: string | number, width: number) => String(value).padStart(width);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function timed<T>(work: () => T): [T, number] {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
}

// 1. Parser: jsdom or linkedom, then Readability, on the same prepared HTML.
function readabilityText(document: Document): string {
  return new Readability(document, { charThreshold: 500 }).parse()?.textContent ?? '';
}
const viaJsdom = (html: string) => {
  const dom = new JSDOM(html, { url: CORPUS_PAGE_URL, virtualConsole: new VirtualConsole() });
  const text = readabilityText(dom.window.document);
  dom.window.close();
  return text;
};
const viaLinkedom = (html: string) => readabilityText(parseHTML(html).document as unknown as Document);

const prepared = pages.map((p) => prepareHtml(p.source));
for (const html of prepared.slice(0, 5)) {
  viaJsdom(html);
  viaLinkedom(html);
}
const parserRows = pages.map((p, i) => {
  const expected = htmlToText(p.expectedHtml);
  const [jsdomText, jsdomMs] = timed(() => viaJsdom(prepared[i]));
  const [linkedomText, linkedomMs] = timed(() => viaLinkedom(prepared[i]));
  return { jsdomMs, linkedomMs, jsdomF1: wordF1(jsdomText, expected), linkedomF1: wordF1(linkedomText, expected), sameText: wordF1(jsdomText, linkedomText) };
});
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const jsdomTotal = sum(parserRows.map((r) => r.jsdomMs));
const linkedomTotal = sum(parserRows.map((r) => r.linkedomMs));
const mean = (values: number[]) => sum(values) / values.length;

// 2. Markdown: node-html-markdown against ours, both from an HTML string (ours parses it with
// linkedom first, as NHM parses it itself), and ours render-only for reference.
const nhm = new NodeHtmlMarkdown();
const parseRoot = (html: string) => parseHTML(`<!doctype html><html><body><div id="root">${html}</div></body></html>`).document.getElementById('root') as unknown as Element;
const oursMarkdown = (html: string) => renderMarkdown(parseRoot(html), { baseUrl: CORPUS_PAGE_URL });

const articles = pages.map((p) => p.expectedHtml);
const articleMiB = sum(articles.map((a) => Buffer.byteLength(a))) / MIB;
articles.slice(0, 10).forEach((a) => {
  nhm.translate(a);
  oursMarkdown(a);
});
const perArticle = articles.map((a) => ({ nhm: timed(() => nhm.translate(a))[1], ours: timed(() => oursMarkdown(a))[1], kb: Buffer.byteLength(a) / 1024 }));
const largest = [...perArticle].sort((a, b) => b.kb - a.kb)[0];

const section = (i: number) =>
  `<h2>Section ${i}</h2><p>Paragraph with <strong>bold</strong>, <em>emphasis</em> and <a href="/ref/${i}">a link</a>. ${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6)}</p>` +
  `<ul><li>one <code>x${i}</code></li><li>two</li></ul>` +
  `<table><thead><tr><th>key</th><th>value</th></tr></thead><tbody><tr><td>a</td><td>${i}</td></tr></tbody></table>` +
  `<pre><code>function f${i}(x) {\n  return x * ${i};\n}</code></pre>`;
const article = (sections: number) => `<article>${Array.from({ length: sections }, (_, i) => section(i)).join('')}</article>`;
const growth = [150, 300, 600, 1200].map((sections) => {
  const html = article(sections);
  return { kb: Buffer.byteLength(html) / 1024, nhm: median([0, 1, 2].map(() => timed(() => nhm.translate(html))[1])), ours: median([0, 1, 2].map(() => timed(() => oursMarkdown(html))[1])) };
});

// What each writes for constructs the card asks for (GFM tables, fenced code, absolute URLs).
const sample =
  '<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tbody><tr><td>Apple</td><td>3</td></tr></tbody></table>' +
  '<pre><code class="language-js">const a = 1;\n\nconsole.log(a);</code></pre>' +
  '<p>See <a href="docs/intro.html">the docs</a> and <a href="#notes">the notes</a>.</p>';

console.log(`Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}
${pages.length} real-site pages

1. parse + Readability, same prepared HTML    jsdom        linkedom     jsdom / linkedom
total                                      ${pad(`${(jsdomTotal / 1000).toFixed(2)} s`, 10)}   ${pad(`${(linkedomTotal / 1000).toFixed(2)} s`, 10)}   ${pad(`${(jsdomTotal / linkedomTotal).toFixed(1)}x`, 8)}
median per page                            ${pad(`${median(parserRows.map((r) => r.jsdomMs)).toFixed(1)} ms`, 10)}   ${pad(`${median(parserRows.map((r) => r.linkedomMs)).toFixed(1)} ms`, 10)}
mean word F1 against expected.html         ${pad(mean(parserRows.map((r) => r.jsdomF1)).toFixed(4), 10)}   ${pad(mean(parserRows.map((r) => r.linkedomF1)).toFixed(4), 10)}
Readability text, jsdom vs linkedom: mean word F1 ${mean(parserRows.map((r) => r.sameText)).toFixed(4)}; identical words on ${parserRows.filter((r) => r.sameText === 1).length}/${parserRows.length} pages

2. markdown from an HTML string              node-html-markdown   ours (linkedom parse + render)
corpus articles (${articleMiB.toFixed(2)} MiB), total          ${pad(`${(sum(perArticle.map((r) => r.nhm)) / 1000).toFixed(2)} s`, 10)}           ${pad(`${(sum(perArticle.map((r) => r.ours)) / 1000).toFixed(2)} s`, 10)}
largest article (${largest.kb.toFixed(0)} KB)                   ${pad(`${largest.nhm.toFixed(0)} ms`, 10)}           ${pad(`${largest.ours.toFixed(0)} ms`, 10)}
one article at growing sizes (median of 3):
${growth.map((g, i) => `  ${pad(g.kb.toFixed(0), 5)} KB                                ${pad(`${g.nhm.toFixed(0)} ms`, 8)}${i ? ` (x${(g.nhm / growth[i - 1].nhm).toFixed(1)})` : '      '}     ${pad(`${g.ours.toFixed(0)} ms`, 8)}${i ? ` (x${(g.ours / growth[i - 1].ours).toFixed(1)})` : ''}`).join('\n')}
  (each size is twice the one before: x2.0 is linear)

what each writes (table, code block with a blank line, relative and fragment links):
--- node-html-markdown
${nhm.translate(sample)}
--- ours (base ${CORPUS_PAGE_URL})
${oursMarkdown(sample)}`);
