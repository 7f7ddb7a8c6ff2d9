import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { prepareHtml } from '@gleaner/html-extract';
import { ANNOTATED_CORPUS, figuresLine, qualityFigures, type AnnotatedPage, type AnnotatedScorer, type QualityFigures } from './annotated-corpus.js';
import { htmlToText, type CorpusPage } from './web-corpus.js';
import { overlapCount, words } from './word-f1.js';

/**
 * The main-content figures issue 35 asks for, on each corpus and each half: the annotated
 * corpus's scores (dragnet F1, snippet F1), and how our text stands against Readability.js
 * alone, which other annotators' truth resembles (it keeps more than ours: recall first).
 */

/** Readability.js alone on the page, its text: what the comparison is made against. */
export function readabilityText(html: string): string {
  try {
    const { document } = parseHTML(prepareHtml(html));
    return new Readability(document as unknown as Document).parse()?.textContent ?? '';
  } catch {
    return '';
  }
}

/** Our text against Readability's: the share of its words we keep (mean a page) and the words it keeps that we drop (pooled). */
export interface AgainstReadability {
  pages: number;
  meanRecall: number;
  droppedShare: number;
  droppedWords: number;
  /** Pages where we keep under half of Readability's words. */
  pagesUnderHalf: number;
}

export function againstReadability(pairs: Array<{ ours: string; readability: string }>): AgainstReadability {
  let recallSum = 0;
  let total = 0;
  let dropped = 0;
  let pages = 0;
  let underHalf = 0;
  for (const { ours, readability } of pairs) {
    const theirs = words(readability);
    if (!theirs.length) continue;
    const missing = theirs.length - overlapCount(theirs, words(ours));
    pages++;
    total += theirs.length;
    dropped += missing;
    recallSum += 1 - missing / theirs.length;
    if (missing > 0.5 * theirs.length) underHalf++;
  }
  return { pages, meanRecall: pages ? recallSum / pages : 1, droppedShare: total ? dropped / total : 0, droppedWords: dropped, pagesUnderHalf: underHalf };
}

/**
 * Readability's text we drop, judged by the truth: on dragnet pages the truth's shingles that
 * Readability's text has and ours lacks (page-units of recall: the sum over pages of the recall
 * lost), on snippet pages the `with` snippets it finds and we miss, against the `without`
 * snippets it leaks and we leave out.
 */
export interface DroppedByTruth {
  dragnetRecallLost: number;
  dragnetRecallGained: number;
  withLost: number;
  withoutAvoided: number;
}

interface ScorerParts {
  loadCorpus(dir?: string): Array<{ folder: string; truthKind: string; truth?: string; snippets?: { with?: string[]; without?: string[] } }>;
  matchText(truth: string, prediction: string): { recall: number | null };
  matchSnippets(snippets: object, prediction: string): { withFound: number; withoutPresent: number };
}

export function droppedByTruth(scorer: AnnotatedScorer, folders: Set<string>, ours: Record<string, string>, readability: Record<string, string>): DroppedByTruth {
  const parts = scorer as unknown as ScorerParts;
  const out: DroppedByTruth = { dragnetRecallLost: 0, dragnetRecallGained: 0, withLost: 0, withoutAvoided: 0 };
  for (const page of parts.loadCorpus(ANNOTATED_CORPUS)) {
    if (!folders.has(page.folder)) continue;
    const mine = ours[page.folder] ?? '';
    const theirs = readability[page.folder] ?? '';
    if (page.truthKind === 'full-text' && page.truth !== undefined) {
      const diff = (parts.matchText(page.truth, mine).recall ?? 0) - (parts.matchText(page.truth, theirs).recall ?? 0);
      if (diff < 0) out.dragnetRecallLost -= diff;
      else out.dragnetRecallGained += diff;
    } else if (page.snippets) {
      const a = parts.matchSnippets(page.snippets, mine);
      const b = parts.matchSnippets(page.snippets, theirs);
      out.withLost += Math.max(0, b.withFound - a.withFound);
      out.withoutAvoided += Math.max(0, b.withoutPresent - a.withoutPresent);
    }
  }
  return out;
}

export interface HalfFigures extends QualityFigures {
  readability: AgainstReadability;
  truth: DroppedByTruth;
}

const fmt = (v: number, digits = 4) => v.toFixed(digits);

export function againstReadabilityLine(r: AgainstReadability): string {
  return `vs Readability: word recall ${fmt(r.meanRecall)} (mean a page), its words we drop ${(100 * r.droppedShare).toFixed(1)} % (${r.droppedWords}), pages under half ${r.pagesUnderHalf}/${r.pages}`;
}

/**
 * The annotated corpus's figures for all pages and each half (tune, check), with the comparison
 * against Readability's text, as lines to print and as numbers to test.
 */
export function annotatedReport(
  scorer: AnnotatedScorer,
  pages: AnnotatedPage[],
  ours: Record<string, string>,
  readability: Record<string, string>,
): { all: HalfFigures; tune: HalfFigures; check: HalfFigures; lines: string[] } {
  const corpus = scorer.loadCorpus(ANNOTATED_CORPUS) as Array<{ folder: string }>;
  const figuresOf = (keep: (p: AnnotatedPage) => boolean): HalfFigures => {
    const chosen = pages.filter(keep);
    const folders = new Set(chosen.map((p) => p.folder));
    return {
      ...qualityFigures(scorer.scoreCorpus(corpus.filter((p) => folders.has(p.folder)), ours)),
      readability: againstReadability(chosen.map((p) => ({ ours: ours[p.folder] ?? '', readability: readability[p.folder] ?? '' }))),
      truth: droppedByTruth(scorer, folders, ours, readability),
    };
  };
  const all = figuresOf(() => true);
  const tune = figuresOf((p) => p.half === 'tune');
  const check = figuresOf((p) => p.half === 'check');
  const lines: string[] = [];
  for (const [label, f] of [[`all (${pages.length})`, all], ['tune half', tune], ['check half', check]] as const) {
    lines.push(figuresLine(label, f));
    lines.push(`${''.padEnd(16)} ${againstReadabilityLine(f.readability)}`);
    lines.push(
      `${''.padEnd(16)} where we differ from Readability, by the truth: dragnet recall lost ${f.truth.dragnetRecallLost.toFixed(2)} page-units, gained ${f.truth.dragnetRecallGained.toFixed(2)}; ` +
        `snippets 'with' lost ${f.truth.withLost}, 'without' left out ${f.truth.withoutAvoided}`,
    );
  }
  for (const language of ['en', 'de', 'other', 'unknown'] as const) {
    const folders = new Set(pages.filter((p) => p.language === language).map((p) => p.folder));
    lines.push(figuresLine(`lang ${language}`, qualityFigures(scorer.scoreCorpus(corpus.filter((p) => folders.has(p.folder)), ours))));
  }
  return { all, tune, check, lines };
}

/** corpus/web: our text against expected.html (Readability's own output): word recall and the words it keeps that we drop. */
export function webCorpusReport(pages: CorpusPage[], ours: Record<string, string>): { figures: AgainstReadability; line: string } {
  const figures = againstReadability(pages.map((p) => ({ ours: ours[p.folder] ?? '', readability: htmlToText(p.expectedHtml) })));
  return { figures, line: `corpus/web (${pages.length} real-site pages) ${againstReadabilityLine(figures).replace('vs Readability', "vs expected.html (Readability's output)")}` };
}
