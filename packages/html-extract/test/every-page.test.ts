import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from '@jest/globals';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractPage, prepareHtml, type PageExtraction } from '../src/index.js';
import { furnitureNameSamples } from '../src/boilerplate.js';
import { ExtractionSteps } from '../src/extraction-steps.js';
import { ExtractionTimeoutError } from '../src/types.js';
import { annotatedPages } from '../../../tests/support/annotated-corpus.js';
import { CORPUS_PAGE_URL, WEB_CORPUS } from '../../../tests/support/web-corpus.js';
import { wordRecall } from '../../../tests/support/word-f1.js';
import { reportFigures } from '../../../tests/support/figures.js';
import { article, page } from './fixtures.js';

/**
 * Never fail on a page that parses (issue 35). Every page of every corpus in ../shared/corpus
 * goes through the extractor, and then variants of a sample of them with every class, id and
 * role that a furniture test reads (ours and Readability's) put where no furniture test may act:
 * on `<html>`, on `<body>`, and on the outer wrappers of the article. No step may throw, and the
 * article must still be found (its words, as the unmodified page gives them, kept).
 */

const CORPUS = path.resolve(WEB_CORPUS, '..');

/** Every HTML page of the corpora: Readability's test pages, the annotated pages, the document corpus's HTML files. */
function corpusPages(): Array<{ id: string; html: string }> {
  const pages: Array<{ id: string; html: string }> = [];
  for (const folder of fs.readdirSync(WEB_CORPUS).sort()) {
    const file = path.join(WEB_CORPUS, folder, 'source.html');
    if (fs.existsSync(file)) pages.push({ id: `web/${folder}`, html: fs.readFileSync(file, 'utf8') });
  }
  for (const p of annotatedPages()) pages.push({ id: p.folder, html: p.html });
  const documents = path.join(CORPUS, 'docs-structure', 'html');
  if (fs.existsSync(documents)) {
    for (const file of fs.readdirSync(documents).sort().filter((f) => f.endsWith('.html'))) pages.push({ id: `docs-structure/${file}`, html: fs.readFileSync(path.join(documents, file), 'utf8') });
  }
  return pages;
}

/** The names a furniture test reads: ours (boilerplate.ts) and the words of Readability's unlikely and negative patterns. */
function furnitureNames(): { names: string[]; roles: string[] } {
  const { names, roles } = furnitureNameSamples();
  const patterns = (Readability.prototype as unknown as { REGEXPS: Record<string, RegExp> }).REGEXPS;
  const readability = `${patterns.unlikelyCandidates.source}|${patterns.negative.source}`
    .split('|')
    .map((word) => word.replace(/[^a-z-]/gi, ''))
    .filter((word) => word.length > 1);
  return { names: [...new Set([...names, ...readability])], roles };
}

/**
 * The outer wrappers of the article in `document`: ancestors, below `<body>`, of the box holding
 * the longest block of the extracted text that hold more than the article (half as much text
 * again: the page's layout boxes, with the article's header, sidebars, footers). The outermost
 * and the one halfway to the article: the boxes nearest the article are the article itself (its
 * header, body and tools), and a name on them says what the article is.
 */
function articleWrappers(document: Document, text: string): Element[] {
  const extracted = text.replace(/\s+/g, ' ');
  let longest: Element | null = null;
  let longestChars = 0;
  for (const block of Array.from(document.querySelectorAll('p, div, td, li, pre'))) {
    if (block.querySelector('p, div, td, li')) continue;
    const blockText = (block.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (blockText.length > Math.max(WRAPPER_MIN_BLOCK_CHARS, longestChars) && extracted.includes(blockText)) {
      longest = block;
      longestChars = blockText.length;
    }
  }
  const box = longest?.parentElement;
  if (!box) return [];
  const chars = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').length;
  const boxChars = Math.max(chars(box), extracted.length);
  const chain: Element[] = [];
  for (let el = box.parentElement; el && el !== document.body && el !== document.documentElement; el = el.parentElement) {
    if (chars(el) >= WRAPPER_MIN_SHARE * boxChars) chain.push(el);
  }
  return chain.length ? [...new Set([chain[chain.length - 1], chain[Math.floor(chain.length / 2)]])] : [];
}
const WRAPPER_MIN_SHARE = 1.5;
const WRAPPER_MIN_BLOCK_CHARS = 80;
/** One page in this many gets the variants; names rotate so that each is put at each place several times. */
const VARIANT_EVERY = 12;
const NAMES_PER_VARIANT = 6;
/** Readability's threshold for an article. */
const ARTICLE_MIN_CHARS = 500;
/** The article's words, as the unmodified page gives them, that a variant must keep. */
const MIN_RECALL = 0.8;

it('extracts every corpus page, and variants with furniture names on the root, the body and the article wrappers, without a failed step', () => {
  const { names, roles } = furnitureNames();
  const failures: string[] = [];
  const lost: string[] = [];
  const extract = (id: string, html: string): PageExtraction | null => {
    try {
      const out = extractPage(html, CORPUS_PAGE_URL, { markdown: true });
      if (out.stepFailures) failures.push(`${id}: ${JSON.stringify(out.stepFailures)}`);
      return out;
    } catch (err) {
      failures.push(`${id}: ${(err as Error).message}`);
      return null;
    }
  };
  const pages = corpusPages();
  let variants = 0;
  let recallSum = 0;
  pages.forEach((p, i) => {
    if (!extract(p.id, p.html) || i % VARIANT_EVERY) return;
    // The variants are serialised from this document: the unmodified one is their baseline.
    const { document } = parseHTML(prepareHtml(p.html)) as unknown as { document: Document };
    const original = extract(`${p.id} (serialised)`, document.toString());
    if (!original) return;
    const places: Array<[string, Element]> = [
      ['html', document.documentElement],
      ['body', document.body],
      ...articleWrappers(document, original.text).map((el, k): [string, Element] => [k ? 'middle wrapper' : 'outer wrapper', el]),
    ];
    places.forEach(([place, el], k) => {
      const group = Array.from({ length: NAMES_PER_VARIANT }, (_, n) => names[((i / VARIANT_EVERY) * NAMES_PER_VARIANT * 4 + k * NAMES_PER_VARIANT + n) % names.length]);
      const saved = ['class', 'id', 'role'].map((name) => [name, el.getAttribute(name)] as const);
      el.setAttribute('class', `${el.getAttribute('class') ?? ''} ${group.slice(1).join(' ')}`.trim());
      el.setAttribute('id', group[0]);
      el.setAttribute('role', roles[(i / VARIANT_EVERY + k) % roles.length]);
      const out = extract(`${p.id} (${place}: ${group.join(' ')})`, document.toString());
      for (const [name, value] of saved) {
        if (value === null) el.removeAttribute(name);
        else el.setAttribute(name, value);
      }
      // Recall is asked of an article: a page whose text is a stub (a paywall's first lines) has none to keep.
      if (!out || original.text.length < ARTICLE_MIN_CHARS) return;
      variants++;
      const recall = wordRecall(out.text, original.text);
      recallSum += recall;
      if (recall < MIN_RECALL) lost.push(`${p.id} (${place}: ${group.join(' ')}): recall ${recall.toFixed(2)}`);
    });
  });
  reportFigures(`every page: ${pages.length} corpus pages and ${variants} variants (${names.length} names, ${roles.length} roles); failed steps ${failures.length}; mean recall of the article in the variants ${(recallSum / variants).toFixed(4)}`);
  expect(pages.length).toBeGreaterThan(800);
  expect(failures).toEqual([]);
  expect(lost).toEqual([]);
}, 300_000);

it('finds the article when <html> carries a furniture-like class (the root was removed, then document.title threw)', () => {
  for (const name of ['header-spacing', 'sidebar-left', 'has-comments', 'nav-open']) {
    const html = `<!doctype html><html class="${name}"><head><title>A story</title></head><body class="modal-open" role="dialog" style="display:none"><div class="article"><h1>A story</h1>${article(8)}</div></body></html>`;
    const out = extractPage(html, 'https://example.com/story', { markdown: true });
    expect(out.stepFailures).toBeUndefined();
    expect(out.text).toContain('Paragraph 7 of a long enough article body');
    expect(out.markdown).toContain('Paragraph 0 of a long enough article body');
  }
});

it('keeps an article whose wrapper is named like comments when nothing comes before it', () => {
  const out = extractPage(page(`<div id="disqus-wrapper"><div class="respond"><h2>Not the title</h2>${article(8)}</div></div><div class="comments"><p>A short comment.</p></div>`), 'https://example.com/', { markdown: false });
  expect(out.text).toContain('Paragraph 7 of a long enough article body');
});

it('skips a step that throws, keeps the candidate before it and names the step; a spent budget still stops the page', () => {
  const steps = new ExtractionSteps();
  expect(steps.run('content edges', () => { throw new Error('boom'); }, () => 'the candidate before')).toBe('the candidate before');
  expect(steps.run('standfirst', () => 'done', () => 'unused')).toBe('done');
  expect(steps.failures).toEqual([{ step: 'content edges', error: 'boom' }]);
  expect(() => steps.run('region', () => { throw new ExtractionTimeoutError(10, 'parse'); }, () => null)).toThrow(ExtractionTimeoutError);
});
