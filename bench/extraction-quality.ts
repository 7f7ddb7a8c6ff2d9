/**
 * Main-content quality without the API, for iterating on the extractor: extractText over every
 * page of ../shared/corpus/web-annotated, scored with the corpus's own score.mjs, overall, per
 * half (tune and check, pages grouped by site) and per language group; each against
 * Readability.js alone (the words of its text we keep, and what we drop that the truth keeps);
 * and corpus/web against expected.html (Readability's output).
 *
 *   pnpm bench:quality                         figures
 *   pnpm bench:quality --worst 10              plus the 10 worst pages of each source
 *   pnpm bench:quality --half tune             only the tuning half (or check)
 *   pnpm bench:quality --page dragnet-103      one page's text and score
 *   pnpm bench:quality --save predictions.json the texts, for `node score.mjs`
 */
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { extractText } from '@gleaner/html-extract';
import { ANNOTATED_CORPUS, annotatedPages, loadScorer } from '../tests/support/annotated-corpus.js';
import { annotatedReport, readabilityText, webCorpusReport } from '../tests/support/quality-report.js';
import { realSitePages } from '../tests/support/web-corpus.js';

const { values: args } = parseArgs({
  options: { worst: { type: 'string' }, half: { type: 'string' }, page: { type: 'string' }, save: { type: 'string' } },
});

const scorer = await loadScorer();
let pages = annotatedPages();
if (args.half) pages = pages.filter((p) => p.half === args.half);
if (args.page) pages = pages.filter((p) => p.folder === args.page);

const predictions: Record<string, string> = {};
const started = performance.now();
for (const page of pages) predictions[page.folder] = extractText(page.html);
const seconds = (performance.now() - started) / 1000;
if (args.save) fs.writeFileSync(args.save, JSON.stringify(predictions));

if (args.page) {
  const corpus = scorer.loadCorpus(ANNOTATED_CORPUS) as Array<{ folder: string }>;
  console.log(predictions[args.page]);
  console.log('----');
  const score = scorer.scoreCorpus(corpus.filter((p) => p.folder === args.page), predictions);
  console.log(scorer.formatWorst(scorer.worstPages(score.perPage, 1)));
} else {
  const readability: Record<string, string> = {};
  for (const page of pages) readability[page.folder] = readabilityText(page.html);
  const web = realSitePages();
  const webTexts: Record<string, string> = {};
  for (const page of web) webTexts[page.folder] = extractText(page.source);
  console.log(`web-annotated (score.mjs; halves grouped by site)\n${annotatedReport(scorer, pages, predictions, readability).lines.join('\n')}`);
  console.log(webCorpusReport(web, webTexts).line);
  console.log(`${pages.length} pages extracted in ${seconds.toFixed(1)} s (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  if (args.worst) {
    const corpus = scorer.loadCorpus(ANNOTATED_CORPUS) as Array<{ folder: string }>;
    const folders = new Set(pages.map((p) => p.folder));
    const score = scorer.scoreCorpus(corpus.filter((p) => folders.has(p.folder)), predictions);
    console.log(scorer.formatWorst(scorer.worstPages(score.perPage, Number(args.worst))));
  }
}
