import { trimContentEdges } from './content-edges.js';
import { fallbackContent, keepMathJaxFormulas, keepQuotesForReadability, neutralizeRoots, readabilityContent, type MainContent } from './main-content.js';
import { renderMarkdown } from './markdown.js';
import { collectImages } from './page-images.js';
import { collectLinks } from './page-links.js';
import { buildMeta, jsonLdArticleBody, parseJsonLd, readMetaSources } from './page-meta.js';
import { ExtractionSteps } from './extraction-steps.js';
import { escapeLineStart, escapeText } from './markdown-escape.js';
import { cleanArticle, mainRegion, type Region, removeFurniture, removeRepeatedBlocks, sharedWordShare, standfirst, tallyTree, trimTrailingLabels, weighed } from './main-region.js';
import { parseDocument } from './parse-document.js';
import { plainText } from './plain-text.js';
import { prepareHtml } from './prepare-html.js';
import { ExtractionTimeoutError, type ExtractOptions, type PageExtraction } from './types.js';
import { absoluteUrl } from './urls.js';

/**
 * Below Readability's own threshold (500 characters) its answer is a guess: on short pages,
 * listings and home pages it returns a nav bar or one teaser. The region finder's answer (the
 * prose-weighted region, or the page without its furniture) is the more faithful one there.
 */
const MIN_ARTICLE_CHARS = 500;
/**
 * Readability's article is the named article body padded with furniture when it has all but a
 * tenth of the body's words, a third more characters, and its extra characters weigh under a
 * fifth of a character of prose each (prose around the body, a continued story, weighs ~1).
 */
const PADDED_MIN_SHARED = 0.9;
const PADDED_MIN_RATIO = 1.3;
const PADDING_MAX_WEIGHT = 0.2;
/**
 * Readability's short article is the region and more when it holds nine tenths of the region's
 * words in more characters and weighs at least nine tenths of it: the headline, a short
 * paragraph or the last lines the weighing left beside the box it chose. Chosen on the tune half
 * of web-annotated (docs/extraction.md).
 */
const SUPERSET_MIN_SHARED = 0.9;
const SUPERSET_MIN_WEIGHT = 0.9;
/** Longest description made from the text when the page has none. */
const EXCERPT_CHARS = 300;

/** The document's base URL: `<base href>` resolved against the page URL, else the page URL. */
function baseUrlOf(document: Document, pageUrl: string): string {
  return absoluteUrl(document.querySelector('base[href]')?.getAttribute('href'), pageUrl) ?? pageUrl;
}

/**
 * Throws ExtractionTimeoutError once the budget is spent. The work is synchronous, so this only
 * runs between phases; the caller's thread budget is the hard stop.
 */
function budgetClock(budgetMs: number | undefined): (phase: string) => void {
  const started = performance.now();
  return (phase) => {
    if (budgetMs !== undefined && performance.now() - started > budgetMs) throw new ExtractionTimeoutError(budgetMs, phase);
  };
}

interface ContentResult {
  root: Element;
  text: string;
  readability: MainContent | null;
  source: PageExtraction['contentSource'];
}

/** The page's own text, as the candidate of last resort: the body without navigation, footers and hidden nodes. */
function bodyContent(prepared: string): ContentResult {
  const root = fallbackContent(parseDocument(prepared));
  return { root, text: plainText(root), readability: null, source: 'fallback' };
}

/**
 * Main content: the candidates compared (chooseContent), the boilerplate left after the article
 * cut (content-edges.ts), and the article's standfirst put back in front when it sits with the
 * heading, outside the element chosen. Each step that throws is skipped with the candidate
 * before it kept (Readability's article, else the body's text); only a body that cannot be read
 * fails the page.
 */
function mainContent(document: Document, prepared: string, articleBody: string | undefined, steps: ExtractionSteps): ContentResult {
  const title = steps.run('title', () => document.title ?? '', () => '');
  const candidates = steps.run('candidates', () => chooseContent(document, prepared, articleBody, title, steps), () => null);
  if (!candidates || candidates.source === 'fallback' || !candidates.text) return candidates && candidates.text ? candidates : bodyContent(prepared);
  const { tree, ...chosen } = candidates;
  // Cut in place: a copy is kept to go back to if the step throws halfway.
  const before = chosen.root.cloneNode(true) as Element;
  steps.run(
    'content edges',
    () => {
      if (trimContentEdges(chosen.root)) chosen.text = plainText(chosen.root);
    },
    () => {
      chosen.root = before;
      chosen.text = plainText(before);
    },
  );
  // The standfirst sits with the heading, outside the element either candidate chose.
  const dek = steps.run('standfirst', () => standfirst(tree, title, chosen.text), () => null);
  if (!dek || chosen.root.contains(dek)) return chosen;
  const root = document.createElement('div');
  root.append(dek, chosen.root);
  return { ...chosen, root, text: `${plainText(dek)}\n\n${chosen.text}` };
}

/**
 * Main content, from two candidates compared. The page's body is copied first; the document is
 * then pruned of furniture (share bars, related lists, comments, cookie banners…) and given to
 * Readability, and the copy to the region finder (main-region.ts). Readability's article wins
 * when it is long enough (500 characters, its own threshold) unless the two disagree: little of
 * the region's text in it, and the region weighing more than twice as much as prose. Short
 * articles and listings take the region, never the whole page, unless Readability's short
 * article is the region and more (preferReadability).
 *
 * `tree` is the pruned copy of the body the region was found in.
 */
function chooseContent(document: Document, prepared: string, articleBody: string | undefined, title: string, steps: ExtractionSteps): ContentResult & { tree: Element } {
  // The root's and the body's names and roles describe the page, never a part of it: read as
  // furniture (`<html class="header-spacing">`, Readability's "header"), they would remove the
  // whole page.
  neutralizeRoots(document);
  const body = document.body ?? document.documentElement;
  // Before any furniture test too: the formulas' classes contain "Menu".
  if (document.querySelector('mjx-container')) keepMathJaxFormulas(document);
  const copy = body.cloneNode(true) as Element;
  const readability = steps.run(
    'readability',
    () => {
      removeFurniture(body, tallyTree(body, null), title);
      keepQuotesForReadability(document);
      const article = readabilityContent(document);
      if (article) {
        cleanArticle(article.element);
        removeRepeatedBlocks(article.element);
        trimTrailingLabels(article.element);
      }
      return article;
    },
    () => null, // Readability throws on some malformed documents; the region covers them.
  );
  const readabilityText = readability ? plainText(readability.element) : '';
  const region = steps.run(
    'region',
    () => {
      const found = mainRegion(copy, { articleBody, title });
      // A region without prose is the page minus its furniture, labels and all.
      removeRepeatedBlocks(found.element);
      if (found.score > 0) trimTrailingLabels(found.element);
      return { ...found, text: plainText(found.element) };
    },
    () => null,
  );
  const fromReadability = () => (readability && readabilityText ? { root: readability.element, text: readabilityText, readability, source: 'readability' as const, tree: copy } : null);
  if (!region) return fromReadability() ?? { ...bodyContent(prepared), tree: copy };
  const chosen = steps.run('choice', () => (preferReadability(readability, readabilityText, region, copy, articleBody) ? fromReadability() : null), fromReadability);
  if (chosen) return chosen;
  if (region.text) return { root: region.element, text: region.text, readability, source: 'region', tree: copy };
  return { ...bodyContent(prepared), readability, tree: copy };
}

/**
 * Whether Readability's article is the answer rather than the region: it is long enough (500
 * characters) and the two agree; or it is short and either the region found no box and the article
 * holds most of the page's prose weight, or the article is the region and more.
 */
function preferReadability(readability: MainContent | null, readabilityText: string, region: Region & { text: string }, copy: Element, articleBody: string | undefined): boolean {
  if (!readability || !readabilityText) return false;
  const weight = weighed(readability.element);
  const { text } = region;
  if (readabilityText.length >= MIN_ARTICLE_CHARS) {
    // They disagree when Readability's article holds under half of the region's words and the
    // region weighs more than twice as much, or is the page's own article body (by name, or the
    // post under the heading the title names) that Readability passed over.
    const shared = sharedWordShare(text, readabilityText);
    // The region as it is given: the weighing counted the copies of the article that
    // removeRepeatedBlocks dropped since (an "article excerpt" tab holding the text again).
    const regionWeight = weighed(region.element).score;
    const disagree = shared < 0.5 && ((weight.score > 0 && regionWeight > 2 * weight.score) || (region.structural && region.score > 0));
    // Readability's article can be the page's own article body padded with text that weighs
    // nothing as prose (a blog's sidebar of "about" boxes, recent posts and categories, or a
    // category list it took for the post): the region, named as that body, holds nearly all of
    // Readability's prose in far fewer characters, and is the answer.
    const { found } = region;
    const padding = weight.chars - found.chars;
    const padded = region.structural && region.score > 0 && shared >= PADDED_MIN_SHARED && weight.chars >= PADDED_MIN_RATIO * found.chars && weight.score - found.score < PADDING_MAX_WEIGHT * padding;
    if (!disagree && !padded) return true;
  }
  // The weighing found no box (the region is the whole page: a short post's prose weighs no
  // more than the blurbs of the site around it), and Readability's short article holds most of
  // the page's prose weight: that article is the post, not one teaser of a listing.
  if (region.element === copy && region.score > 0 && weight.score >= 0.5 * region.score) return true;
  // Below its threshold Readability's article is a guess, unless it is the region with more of the
  // same article around it (the sanity comparison of one extractor against another): longer,
  // holding nine tenths of the region's words, and weighing nine tenths of the region or more
  // (what it adds is not link lists and scraps). Not when the page's JSON-LD articleBody weighed
  // the region: the page said which text is the article.
  return (
    !articleBody &&
    text !== '' &&
    readabilityText.length < MIN_ARTICLE_CHARS &&
    readabilityText.length > text.length &&
    sharedWordShare(text, readabilityText) >= SUPERSET_MIN_SHARED &&
    weight.score >= SUPERSET_MIN_WEIGHT * region.score
  );
}

/** Plain text as markdown that reads as the same text (no line taken for a heading, list or quote). */
const textAsMarkdown = (text: string) => text.split('\n').map((line) => escapeLineStart(escapeText(line))).join('\n');

/** The first paragraph of the text, cut at a word boundary: the description of last resort. */
function firstParagraph(text: string): string {
  const paragraph = text.split(/\n\s*\n/).find((p) => /\p{L}/u.test(p))?.replace(/\s+/g, ' ').trim() ?? '';
  if (paragraph.length <= EXCERPT_CHARS) return paragraph;
  const cut = paragraph.slice(0, EXCERPT_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), EXCERPT_CHARS / 2)).trimEnd()}…`;
}

/**
 * Pure function from (html, final URL) to text, optional markdown, metadata, every link and image.
 * One parse serves everything: links, images and metadata are read first, then Readability
 * (which mutates the document) finds the main content, whose own elements are turned into text
 * and markdown without serialising and re-parsing them.
 */
export function extractPage(html: string, url: string, options: ExtractOptions = { markdown: false }): PageExtraction {
  const check = budgetClock(options.timeBudgetMs);
  const pageUrl = new URL(url).href;
  const prepared = prepareHtml(html);
  const document = parseDocument(prepared);
  check('parse');
  const steps = new ExtractionSteps();
  const baseUrl = steps.run('base url', () => baseUrlOf(document, pageUrl), () => pageUrl);
  const links = steps.run('links', () => collectLinks(document, pageUrl, baseUrl), () => []);
  const images = steps.run('images', () => collectImages(document, baseUrl), () => []);
  const metaSources = steps.run('metadata', () => readMetaSources(document), () => null);
  check('links, images and metadata');
  const articleBody = metaSources ? steps.run('json-ld article body', () => jsonLdArticleBody(metaSources.jsonLd), () => undefined) : undefined;
  const content = mainContent(document, prepared, articleBody, steps);
  check('main content');
  const excerpt = firstParagraph(content.text);
  const meta = steps.run('metadata', () => (metaSources ? buildMeta(metaSources, baseUrl, content.readability?.meta ?? null, excerpt) : null), () => null) ?? {
    title: content.readability?.meta.title ?? '',
    description: excerpt,
  };
  let markdown: string | undefined;
  if (options.markdown) {
    // Rendered from the content's own elements; failing that, from its text as plain paragraphs.
    markdown = steps.run('markdown', () => renderMarkdown(content.root, { baseUrl }), () => textAsMarkdown(content.text));
    check('markdown');
  }
  const stepFailures = steps.failures.length ? { stepFailures: steps.failures } : {};
  return { title: meta.title, text: content.text, ...(markdown !== undefined ? { markdown } : {}), meta, links, images, contentSource: content.source, ...stepFailures };
}

/**
 * Just the main text of a page, as extractPage gives it, without the work for links, images,
 * metadata and markdown. Text never depends on the page URL, so none is asked for.
 */
export function extractText(html: string, options: Pick<ExtractOptions, 'timeBudgetMs'> = {}): string {
  const check = budgetClock(options.timeBudgetMs);
  const prepared = prepareHtml(html);
  const document = parseDocument(prepared);
  check('parse');
  const steps = new ExtractionSteps();
  const articleBody = steps.run('json-ld article body', () => jsonLdArticleBody(parseJsonLd(document)), () => undefined);
  const { text } = mainContent(document, prepared, articleBody, steps);
  check('main content');
  return text;
}
