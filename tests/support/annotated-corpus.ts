import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './processes.js';

/** The human-annotated web corpus (its README): dragnet full-text pages and trafilatura-eval snippet pages. */
export const ANNOTATED_CORPUS = path.resolve(REPO_ROOT, '../shared/corpus/web-annotated');

export interface AnnotatedPage {
  folder: string;
  source: 'dragnet' | 'trafilatura-eval';
  /** en, de or other, from `<html lang>`; dragnet pages without one are English (README). */
  language: 'en' | 'de' | 'other' | 'unknown';
  /**
   * The tuning half or the check half, by site: every page of a site (its registrable domain:
   * the blogs of one blog host are one site, one template) in the same half, the sites
   * alternating in the manifest's order within each source. A rule fitted to a template on one half cannot score on
   * the other.
   */
  half: 'tune' | 'check';
  html: string;
}

interface TextFigures {
  pages: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}
interface SnippetFigures {
  pages: number;
  withFoundShare: number | null;
  withoutAbsentShare: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  commentsTotal: number;
  commentsAbsentShare: number | null;
}
export interface CorpusScore {
  overall: { fullText: TextFigures | null; snippets: SnippetFigures | null };
  perPage: Array<{ folder: string; kind: 'full-text' | 'snippets'; f1?: number; accuracy?: number | null }>;
}

/** The parts of the corpus's own scorer (score.mjs, plain JavaScript outside the repo) used here. */
export interface AnnotatedScorer {
  loadCorpus(dir?: string): unknown[];
  scoreCorpus(pages: unknown[], predictions: Record<string, string>, options?: { source?: string }): CorpusScore;
  worstPages(perPage: CorpusScore['perPage'], n: number): unknown[];
  formatReport(result: CorpusScore): string;
  formatWorst(rows: unknown[]): string;
}

/** Loads score.mjs itself, so every figure here is the corpus's own metric. */
export async function loadScorer(): Promise<AnnotatedScorer> {
  return (await import(pathToFileURL(path.join(ANNOTATED_CORPUS, 'score.mjs')).href)) as AnnotatedScorer;
}

const languageOf = (source: string, lang: string | null): AnnotatedPage['language'] => {
  const primary = lang?.toLowerCase().split('-')[0];
  if (!primary) return source === 'dragnet' ? 'en' : 'unknown';
  return primary === 'en' || primary === 'de' ? primary : 'other';
};

/**
 * A page's site: the manifest's host reduced to its registrable domain (two labels, three under
 * a short second-level label such as co.uk or com.br); the folder when the page has no host.
 */
function siteOf(host: string | null, folder: string): string {
  if (!host || host === 'null') return folder;
  const labels = host.toLowerCase().replace(/^www\./, '').split('.');
  const keep = labels.length > 2 && labels[labels.length - 2].length <= 3 ? 3 : 2;
  return labels.slice(-keep).join('.');
}

/** Every page with its HTML (read as UTF-8, as the README says), source, language group and half. */
export function annotatedPages(): AnnotatedPage[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(ANNOTATED_CORPUS, 'MANIFEST.json'), 'utf8')) as {
    pages: Array<{ folder: string; source: AnnotatedPage['source']; lang: string | null; host: string | null }>;
  };
  const halfOfSite = new Map<string, AnnotatedPage['half']>();
  // Sites alternate within each source, so that both halves hold as many pages of each kind of truth.
  const sitesOfSource = new Map<string, number>();
  return manifest.pages.map((p) => {
    const site = siteOf(p.host, p.folder);
    if (!halfOfSite.has(site)) {
      const n = sitesOfSource.get(p.source) ?? 0;
      sitesOfSource.set(p.source, n + 1);
      halfOfSite.set(site, n % 2 === 0 ? 'tune' : 'check');
    }
    return {
      folder: p.folder,
      source: p.source,
      language: languageOf(p.source, p.lang),
      half: halfOfSite.get(site)!,
      html: fs.readFileSync(path.join(ANNOTATED_CORPUS, p.folder, 'source.html'), 'utf8'),
    };
  });
}

/** The figures the issue asks for, as one object (null where a group has no page of the kind). */
export interface QualityFigures {
  dragnetF1: number | null;
  dragnetPrecision: number | null;
  dragnetRecall: number | null;
  snippetF1: number | null;
  withFound: number | null;
  withoutAbsent: number | null;
  commentsAbsent: number | null;
}

export function qualityFigures(score: CorpusScore): QualityFigures {
  const { fullText, snippets } = score.overall;
  return {
    dragnetF1: fullText?.f1 ?? null,
    dragnetPrecision: fullText?.precision ?? null,
    dragnetRecall: fullText?.recall ?? null,
    snippetF1: snippets?.f1 ?? null,
    withFound: snippets?.withFoundShare ?? null,
    withoutAbsent: snippets?.withoutAbsentShare ?? null,
    commentsAbsent: snippets?.commentsAbsentShare ?? null,
  };
}

const fmt = (v: number | null) => (v === null ? '  n/a' : v.toFixed(3));

/** One line of figures: dragnet P/R/F1, snippet F1 with found / without absent. */
export function figuresLine(label: string, f: QualityFigures): string {
  return (
    `${label.padEnd(16)} dragnet F1 ${fmt(f.dragnetF1)} (P ${fmt(f.dragnetPrecision)} R ${fmt(f.dragnetRecall)})  ` +
    `snippets F1 ${fmt(f.snippetF1)} (with ${fmt(f.withFound)} without-absent ${fmt(f.withoutAbsent)} comments-absent ${fmt(f.commentsAbsent)})`
  );
}

/**
 * The whole corpus's figures, then each half and each language group: a change that helps one
 * group and hurts the others is overfitting, which these lines show.
 */
export function groupReport(scorer: AnnotatedScorer, pages: AnnotatedPage[], predictions: Record<string, string>): { all: QualityFigures; lines: string[] } {
  const corpus = scorer.loadCorpus(ANNOTATED_CORPUS) as Array<{ folder: string }>;
  const scoreOf = (keep: (p: AnnotatedPage) => boolean) => {
    const folders = new Set(pages.filter(keep).map((p) => p.folder));
    return qualityFigures(scorer.scoreCorpus(corpus.filter((p) => folders.has(p.folder)), predictions));
  };
  const all = scoreOf(() => true);
  const lines = [figuresLine(`all (${pages.length})`, all)];
  for (const half of ['tune', 'check'] as const) lines.push(figuresLine(`${half} half`, scoreOf((p) => p.half === half)));
  for (const language of ['en', 'de', 'other', 'unknown'] as const) lines.push(figuresLine(`lang ${language}`, scoreOf((p) => p.language === language)));
  return { all, lines };
}
