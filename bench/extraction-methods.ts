/**
 * The comparison of main-content methods behind docs/extraction.md (issue 35): independent
 * extractors vote on each block (line of text) of the page, scored like bench:quality on both
 * halves of web-annotated (pages grouped by site) and on corpus/web.
 *
 * Voters, each blind to the others:
 *   readability  Readability.js alone on the page (linkedom)
 *   ours         extractText (furniture by name, Readability and the region finder compared, edges)
 *   density      boilerpipe's rules on words and link density of a block and its neighbours
 *                (Kohlschütter et al. 2010, NumWordsRulesClassifier)
 *   stopwords    jusText's classifier (Pomikálek 2011): length, link density and the density of
 *                function words, revised by the neighbours; function words are the page's own
 *                most frequent words (no word list of any language)
 *
 * A block is a line as a reader sees it (text between block boundaries); a block is kept by a
 * text extractor when the extractor's text holds it. Methods: each voter alone, majorities,
 * recall-first combinations (ours, plus what Readability keeps when a block classifier agrees),
 * and a learned vote (logistic regression on the votes and block features, trained on the tune
 * half's blocks only, so its check-half figures are held apart). Run: pnpm bench:methods
 */
import os from 'node:os';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { extractText, prepareHtml } from '@gleaner/html-extract';
import { annotatedPages, loadScorer } from '../tests/support/annotated-corpus.js';
import { annotatedReport, webCorpusReport } from '../tests/support/quality-report.js';
import { realSitePages } from '../tests/support/web-corpus.js';

const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'BR', 'CAPTION', 'CENTER', 'DD', 'DETAILS', 'DIALOG', 'DIR', 'DIV', 'DL', 'DT', 'FIELDSET',
  'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'LEGEND', 'LI', 'MAIN', 'MENU', 'NAV',
  'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TD', 'TH', 'THEAD', 'TFOOT', 'TR', 'UL',
]);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'TITLE', 'OBJECT', 'EMBED', 'CANVAS', 'IFRAME', 'SELECT', 'OPTION', 'BUTTON', 'TEXTAREA']);

interface Line {
  text: string;
  words: number;
  linkWords: number;
  heading: boolean;
}

const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

/** The page's lines in reading order. */
function linesOf(html: string): Line[] {
  const { document } = parseHTML(prepareHtml(html));
  const lines: Line[] = [];
  let parts: string[] = [];
  let linkWords = 0;
  let heading = 0;
  const flush = () => {
    const text = parts.join('').replace(/\s+/g, ' ').trim();
    if (text) lines.push({ text, words: wordsOf(text).length, linkWords, heading: heading > 0 });
    parts = [];
    linkWords = 0;
  };
  const visit = (el: Element, link: boolean) => {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        const value = child.nodeValue ?? '';
        parts.push(value);
        if (link) linkWords += wordsOf(value).length;
        continue;
      }
      if (child.nodeType !== 1) continue;
      const c = child as Element;
      const tag = c.tagName.toUpperCase();
      if (SKIP.has(tag) || c.hasAttribute('hidden') || /display\s*:\s*none/i.test(c.getAttribute('style') ?? '')) continue;
      const block = BLOCK.has(tag);
      const h = /^H[1-6]$/.test(tag);
      if (block) flush();
      if (h) heading++;
      visit(c, link || (tag === 'A' && c.hasAttribute('href')));
      if (h) heading--;
      if (block) flush();
    }
  };
  const body = (document.body ?? document.documentElement) as unknown as Element;
  visit(body, false);
  flush();
  return lines;
}

/** Which lines a text extractor kept: the line is in its text (whitespace-normalised). */
function keptBy(lines: Line[], text: string): boolean[] {
  const normal = ` ${text.replace(/\s+/g, ' ')} `;
  return lines.map((l) => (l.text.length < 25 ? normal.includes(` ${l.text} `) : normal.includes(l.text)));
}

const linkDensity = (l: Line | undefined) => (l && l.words ? l.linkWords / l.words : 0);

/** boilerpipe's NumWordsRulesClassifier. */
function densityVotes(lines: Line[]): boolean[] {
  return lines.map((curr, i) => {
    const prev = lines[i - 1];
    const next = lines[i + 1];
    const prevWords = prev?.words ?? 0;
    const nextWords = next?.words ?? 0;
    if (linkDensity(curr) > 0.333333) return false;
    if (linkDensity(prev) <= 0.555556) {
      if (curr.words <= 16) {
        if (nextWords <= 15) return prevWords > 4;
        return true;
      }
      return true;
    }
    if (curr.words <= 40) return nextWords > 17;
    return true;
  });
}

/** jusText's classifier and context revision, function words taken from the page's own frequencies. */
function stopwordVotes(lines: Line[]): boolean[] {
  const counts = new Map<string, number>();
  for (const l of lines) for (const w of wordsOf(l.text.toLowerCase())) counts.set(w, (counts.get(w) ?? 0) + 1);
  const stop = new Set([...counts].sort((a, b) => b[1] - a[1]).slice(0, FUNCTION_WORDS).map(([w]) => w));
  type Cls = 'good' | 'bad' | 'short' | 'near-good';
  const initial: Cls[] = lines.map((l) => {
    const length = l.text.length;
    const ws = wordsOf(l.text.toLowerCase());
    const density = ws.length ? ws.filter((w) => stop.has(w)).length / ws.length : 0;
    if (linkDensity(l) > 0.2) return 'bad';
    if (/©|&copy/.test(l.text)) return 'bad';
    if (length < 70) return linkDensity(l) > 0 ? 'bad' : 'short';
    if (density >= 0.32) return length > 200 ? 'good' : 'near-good';
    if (density >= 0.3) return 'near-good';
    return 'bad';
  });
  const neighbour = (cls: Cls[], i: number, step: number, ignoreNearGood: boolean): Cls => {
    for (let j = i + step; j >= 0 && j < cls.length; j += step) {
      if (cls[j] === 'good' || cls[j] === 'bad') return cls[j];
      if (cls[j] === 'near-good' && !ignoreNearGood) return 'near-good';
    }
    return 'bad';
  };
  const revised = [...initial];
  for (let i = 0; i < revised.length; i++) {
    if (initial[i] !== 'short') continue;
    const prev = neighbour(initial, i, -1, true);
    const next = neighbour(initial, i, 1, true);
    if (prev === 'good' && next === 'good') revised[i] = 'good';
    else if (prev === 'bad' && next === 'bad') revised[i] = 'bad';
    else if ((prev === 'bad' && neighbour(initial, i, -1, false) === 'near-good') || (next === 'bad' && neighbour(initial, i, 1, false) === 'near-good')) revised[i] = 'good';
    else revised[i] = 'bad';
  }
  for (let i = 0; i < revised.length; i++) {
    if (revised[i] !== 'near-good') continue;
    const prev = neighbour(revised, i, -1, true);
    const next = neighbour(revised, i, 1, true);
    revised[i] = prev === 'bad' && next === 'bad' ? 'bad' : 'good';
  }
  return revised.map((c) => c === 'good');
}
const LEARN_EPOCHS = 300;
const LEARN_RATE = 2;
const LEARN_L2 = 1e-4;
/** The page's most frequent words taken as its function words. */
const FUNCTION_WORDS = 40;

interface Votes {
  lines: Line[];
  readability: boolean[];
  ours: boolean[];
  density: boolean[];
  stopwords: boolean[];
  oursText: string;
  readabilityText: string;
  span?: [number, number];
}

function votesOf(html: string): Votes {
  const lines = linesOf(html);
  const oursText = extractText(html);
  let readabilityText = '';
  try {
    readabilityText = new Readability(parseHTML(prepareHtml(html)).document as unknown as Document).parse()?.textContent ?? '';
  } catch {
    readabilityText = '';
  }
  return { lines, readability: keptBy(lines, readabilityText), ours: keptBy(lines, oursText), density: densityVotes(lines), stopwords: stopwordVotes(lines), oursText, readabilityText };
}

type Method = (v: Votes, i: number) => boolean;
const METHODS: Record<string, Method> = {
  // How much the block reading itself loses: ours and Readability's text, rebuilt from the blocks they hold.
  'ours, as blocks': (v, i) => v.ours[i],
  'readability, as blocks': (v, i) => v.readability[i],
  'density alone': (v, i) => v.density[i],
  'stopwords alone': (v, i) => v.stopwords[i],
  'majority of readability, density, stopwords': (v, i) => Number(v.readability[i]) + Number(v.density[i]) + Number(v.stopwords[i]) >= 2,
  'majority of all four (3 of 4)': (v, i) => Number(v.readability[i]) + Number(v.ours[i]) + Number(v.density[i]) + Number(v.stopwords[i]) >= 3,
  'two of four': (v, i) => Number(v.readability[i]) + Number(v.ours[i]) + Number(v.density[i]) + Number(v.stopwords[i]) >= 2,
  'ours, plus readability when a classifier agrees': (v, i) => v.ours[i] || (v.readability[i] && (v.density[i] || v.stopwords[i])),
  'ours, plus readability when both classifiers agree': (v, i) => v.ours[i] || (v.readability[i] && v.density[i] && v.stopwords[i]),
  'readability, less what ours and both classifiers drop': (v, i) => v.readability[i] && (v.ours[i] || v.density[i] || v.stopwords[i]),
  // Only inside the text: what Readability keeps between our first and last block (a quote, a list, a call we cut from the middle).
  'ours, plus readability inside our text': (v, i) => v.ours[i] || (v.readability[i] && inside(v, i)),
  'ours, plus readability inside our text when a classifier agrees': (v, i) => v.ours[i] || (v.readability[i] && inside(v, i) && (v.density[i] || v.stopwords[i])),
};
/** Whether block i lies between the first and the last block ours keeps. */
function inside(v: Votes, i: number): boolean {
  v.span ??= [v.ours.indexOf(true), v.ours.lastIndexOf(true)];
  return i > v.span[0] && i < v.span[1];
}

const scorer = await loadScorer();
const pages = annotatedPages();
const web = realSitePages();
const started = performance.now();
const votes = new Map<string, Votes>();
for (const p of pages) votes.set(p.folder, votesOf(p.html));
for (const p of web) votes.set(`web/${p.folder}`, votesOf(p.source));
const texts = (method: Method | 'ours' | 'readability', keys: string[]) => {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const v = votes.get(key)!;
    if (method === 'ours') out[key.replace(/^web\//, '')] = v.oursText;
    else if (method === 'readability') out[key.replace(/^web\//, '')] = v.readabilityText;
    else out[key.replace(/^web\//, '')] = v.lines.filter((_, i) => method(v, i)).map((l) => l.text).join('\n\n');
  }
  return out;
};
const readability = texts('readability', pages.map((p) => p.folder));

// A learned vote: logistic regression over the four votes and the block's own features (and its
// neighbours' votes), trained on the tune half's blocks only and applied to both halves. Labels:
// a dragnet block is content when the human text holds it; a snippet page's block when it holds
// a `with` snippet, boilerplate when it holds a `without` one (its other blocks are unlabelled).
const normal = (t: string) => t.replace(/\s+/g, ' ').trim();
const truthOf = new Map((scorer.loadCorpus() as Array<{ folder: string; truth?: string; snippets?: { with?: string[]; without?: string[] } }>).map((p) => [p.folder, p]));
function features(v: Votes, i: number): number[] {
  const l = v.lines[i];
  const b = (x: boolean | undefined) => (x ? 1 : 0);
  return [1, b(v.ours[i]), b(v.readability[i]), b(v.density[i]), b(v.stopwords[i]), Math.log1p(l.words) / 5, linkDensity(l), b(l.heading), b(v.ours[i - 1]), b(v.ours[i + 1]), b(v.readability[i - 1]), b(v.readability[i + 1]), i / v.lines.length];
}
function label(folder: string, l: Line): number | null {
  const page = truthOf.get(folder);
  if (!page) return null;
  if (page.truth !== undefined) return normal(page.truth).includes(l.text) ? 1 : 0;
  if ((page.snippets?.with ?? []).some((x) => l.text.includes(normal(x)))) return 1;
  if ((page.snippets?.without ?? []).some((x) => l.text.includes(normal(x)))) return 0;
  return null;
}
const samples: Array<[number[], number]> = [];
for (const p of pages.filter((q) => q.half === 'tune')) {
  const v = votes.get(p.folder)!;
  v.lines.forEach((l, i) => {
    const y = label(p.folder, l);
    if (y !== null) samples.push([features(v, i), y]);
  });
}
const weights = new Array<number>(samples[0][0].length).fill(0);
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const dot = (x: number[]) => x.reduce((a, xi, k) => a + xi * weights[k], 0);
for (let epoch = 0; epoch < LEARN_EPOCHS; epoch++) {
  const grad = new Array<number>(weights.length).fill(0);
  for (const [x, y] of samples) {
    const err = sigmoid(dot(x)) - y;
    x.forEach((xi, k) => (grad[k] += err * xi));
  }
  grad.forEach((g, k) => (weights[k] -= LEARN_RATE * (g / samples.length + LEARN_L2 * weights[k])));
}
console.log(`learned vote: ${samples.length} labelled tune blocks, weights ${weights.map((w) => w.toFixed(2)).join(' ')}`);
METHODS['learned vote (tune half), p >= 0.5'] = (v, i) => sigmoid(dot(features(v, i))) >= 0.5;
METHODS['learned vote (tune half), p >= 0.3'] = (v, i) => sigmoid(dot(features(v, i))) >= 0.3;
const f = (v: number | null) => (v === null ? 'n/a' : v.toFixed(3));
console.log(`${pages.length} + ${web.length} pages read in ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`${'method'.padEnd(54)} ${'dragnet tune/check'.padEnd(20)} ${'snippets tune/check'.padEnd(20)} ${'vs R tune/check'.padEnd(16)} corpus/web recall`);
for (const [name, method] of [['ours', 'ours'], ['readability alone', 'readability'], ...Object.entries(METHODS)] as Array<[string, Method | 'ours' | 'readability']>) {
  const ours = texts(method, pages.map((p) => p.folder));
  const report = annotatedReport(scorer, pages, ours, readability);
  const webReport = webCorpusReport(web, texts(method, web.map((p) => `web/${p.folder}`)));
  console.log(
    `${name.padEnd(54)} ${`${f(report.tune.dragnetF1)} / ${f(report.check.dragnetF1)}`.padEnd(20)} ${`${f(report.tune.snippetF1)} / ${f(report.check.snippetF1)}`.padEnd(20)} ` +
      `${`${f(report.tune.readability.meanRecall)} / ${f(report.check.readability.meanRecall)}`.padEnd(16)} ${f(webReport.figures.meanRecall)}`,
  );
}
