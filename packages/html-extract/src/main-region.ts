import { FURNITURE_TAGS, furnitureName, namedAsArticleBody, namedAsComments, quotedContent, unnameFurniture } from './boilerplate.js';
import { isHidden } from './plain-text.js';

/** Elements whose text is a paragraph (a block) of its own; everything else is inline. */
export const BLOCK_TAGS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'CENTER', 'DD', 'DETAILS', 'DIALOG', 'DIR', 'DIV', 'DL', 'DT',
  'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'HTML', 'LEGEND',
  'LI', 'MAIN', 'MENU', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TBODY', 'TD', 'TH', 'THEAD', 'TFOOT', 'TR', 'UL',
]);
/** Never text (as in plainText). */
export const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'TITLE', 'OBJECT', 'EMBED', 'CANVAS', 'IMG', 'VIDEO', 'AUDIO', 'MAP', 'IFRAME']);
const ELEMENT = 1;
const TEXT = 3;

/** Text totals of an element's subtree and the summed weight of its blocks. */
interface Tally {
  chars: number;
  linkChars: number;
  /** Sum of block weights: positive for prose, negative for link lists and scraps. */
  score: number;
  /** Characters in prose blocks only (the positive part of the score). */
  prose: number;
}

/** Word trigrams of a text, for "is this block part of the JSON-LD articleBody". */
function trigrams(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (let i = 0; i + 3 <= words.length; i++) out.push(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}

export interface RegionOptions {
  /** schema.org articleBody text from the page's JSON-LD, when it has one long enough to trust. */
  articleBody?: string;
  /** The document's title, read before any step changed the document (articleHeading). */
  title?: string;
}

/**
 * The weight of one block of text, the paragraph-level classifier: prose (long enough, few of its
 * characters in links) counts for the region holding it, link lists and short scraps (labels,
 * dates, buttons) against it. With an articleBody from JSON-LD, a block the articleBody contains
 * is prose and one it does not is furniture, whatever its shape.
 */
function blockWeight(text: string, chars: number, linkChars: number, bodyGrams: Set<string> | null): number {
  const linkDensity = linkChars / chars;
  if (bodyGrams) {
    const grams = trigrams(text);
    if (grams.length >= 2) {
      let found = 0;
      for (const g of grams) if (bodyGrams.has(g)) found++;
      // Prose the articleBody does not have counts for nothing: some pages put only the first
      // paragraphs there, so it is no proof of furniture either.
      return found / grams.length >= 0.5 ? 2 * chars : 0;
    }
  }
  if (linkDensity > 0.5) return -LINK_PENALTY * chars;
  // Scripts without spaces between words (Chinese, Japanese) count characters instead.
  const words = CJK.test(text) ? chars / 2 : text.split(' ').length;
  if (words < 5 || chars < 30) return -Math.min(chars, 20);
  // Sentences: punctuation inside the block marks prose rather than a heading or a label.
  const sentence = /[.!?,;:。！？，、]/.test(text) ? 1 : 0.5;
  return (chars - linkChars) * (1 - linkDensity) * sentence;
}

/** What a character of link list costs a region, against a character of prose. */
const LINK_PENALTY = 0.5;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

interface Walk {
  tallies: Map<Element, Tally>;
  bodyGrams: Set<string> | null;
}

/** Tallies every element of the subtree in one walk; runs of inline text between blocks are the blocks. */
export function tallyTree(root: Element, bodyGrams: Set<string> | null): Map<Element, Tally> {
  const walk: Walk = { tallies: new Map(), bodyGrams };
  const run = { parts: [] as string[], linkChars: 0 };
  const flush = (into: Tally) => {
    if (!run.parts.length) return;
    const text = run.parts.join(' ').replace(/\s+/g, ' ').trim();
    const linkChars = Math.min(run.linkChars, text.length);
    run.parts = [];
    run.linkChars = 0;
    if (!text) return;
    const weight = blockWeight(text, text.length, linkChars, walk.bodyGrams);
    into.score += weight;
    if (weight > 0) into.prose += text.length;
  };
  const visit = (el: Element, inLink: boolean): Tally => {
    const tally: Tally = { chars: 0, linkChars: 0, score: 0, prose: 0 };
    const block = BLOCK_TAGS.has(el.tagName.toUpperCase());
    if (block) flush(tally);
    const link = inLink || (el.tagName.toUpperCase() === 'A' && el.hasAttribute('href'));
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT) {
        const value = child.nodeValue ?? '';
        const length = value.replace(/\s+/g, ' ').trim().length;
        if (!length) continue;
        run.parts.push(value);
        tally.chars += length;
        if (link) {
          run.linkChars += length;
          tally.linkChars += length;
        }
        continue;
      }
      if (child.nodeType !== ELEMENT) continue;
      const childEl = child as Element;
      if (SKIP_TAGS.has(childEl.tagName.toUpperCase()) || isHidden(childEl)) continue;
      const sub = visit(childEl, link);
      tally.chars += sub.chars;
      tally.linkChars += sub.linkChars;
      tally.score += sub.score;
      tally.prose += sub.prose;
    }
    if (block) flush(tally);
    walk.tallies.set(el, tally);
    return tally;
  };
  visit(root, false);
  return walk.tallies;
}

const HEADING = /^H[1-6]$/;
/** "Comments", "12 Responses", "Kommentare (3)", "Leave a reply": the heading a comment section starts with. */
const COMMENTS_HEADING = /^(?:\d+\s+)?(?:comments?|responses?|replies|reactions|kommentare?|commentaires?|comentarios?|komentarze?|leave a (?:reply|comment))\b/i;

function opensComments(el: Element): boolean {
  if (!HEADING.test(el.tagName.toUpperCase())) return false;
  if (namedAsComments(el)) return true;
  const text = (el.textContent ?? '').trim();
  return text.length < COMMENTS_HEADING_MAX_CHARS && COMMENTS_HEADING.test(text);
}
const COMMENTS_HEADING_MAX_CHARS = 40;

/**
 * A "Comments" heading, bare or in a box of its own holding nothing else (`<div
 * class="commentform"><h2>Comments</h2></div>`, `<div class="section-title"><h3>3 Responses</h3>`):
 * the comments follow it, or its box, in the same parent.
 */
function opensCommentsBox(el: Element, chars: number): boolean {
  if (opensComments(el)) return true;
  if (chars === 0 || chars >= COMMENTS_HEADING_MAX_CHARS) return false;
  const heading = el.querySelector('h1, h2, h3, h4, h5, h6');
  return heading !== null && opensComments(heading) && textOf(heading) === textOf(el);
}

const normalized = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * The heading of the page's article: the first `<h1>`–`<h3>` whose text is the document's title
 * or part of it ("Site: Post title"); else the first `<h1>`. Blog themes give the post title an
 * `<h3>` and the site name the `<h1>`, and put the post in a `widget` box. With `titled`, the
 * heading must say at least half the title (the post's title, not the site's name), or none.
 */
export function articleHeading(root: Element, documentTitle: string, titled = false): Element | null {
  const title = normalized(documentTitle);
  if (title) {
    for (const heading of Array.from(root.querySelectorAll('h1, h2, h3'))) {
      const text = normalized(heading.textContent ?? '');
      if (text.length < (titled ? 0.5 * title.length : ARTICLE_HEADING_MIN_CHARS) || !text.includes(' ') || !title.includes(text)) continue;
      return heading;
    }
  }
  return titled ? null : root.querySelector('h1');
}
/** Shorter headings ("Home", "Blog") match a title by chance. */
const ARTICLE_HEADING_MIN_CHARS = 10;

/** The post/entry box around the heading that says the document's title, when it holds prose. */
function titledPost(root: Element, title: string, tallies: Map<Element, Tally>): Element | null {
  const box = proseBoxAbove(articleHeading(root, title, true), root, tallies);
  return box && POST_NAME.test(`${box.getAttribute('class') ?? ''} ${box.id}`) ? box : null;
}
const POST_NAME = /(?:^|[^a-z])(?:post|entry|hentry)(?:$|[^a-z])/i;

/** Prose characters that make a furniture-named element without the main heading a wrapper of the page. */
const WRAPPER_MIN_PROSE = 1000;

/** An article's worth of prose, as Readability counts it (its 500-character threshold): a license line or a blurb has less. */
const ARTICLE_MIN_PROSE = 500;

/** Prose characters below which an element named like a byline, tag list or widget is one. */
const SMALL_FURNITURE_PROSE = 200;

/**
 * Removes page furniture (by tag, ARIA role, class and id names; hidden nodes) from the subtree,
 * except the wrapper of the page's text: an element holding most of the prose (a `<div id="page"
 * class="has-sidebar">`, a post classed `entry share`, a page inside one `<form>`) is the page,
 * where a comment section with more prose than the article it follows is still comments.
 */
export function removeFurniture(root: Element, tallies: Map<Element, Tally>, title: string): void {
  const pageProse = tallies.get(root)?.prose ?? 0;
  const pageChars = tallies.get(root)?.chars ?? 0;
  const heading = articleHeading(root, title);
  // Comments can outweigh a short article, so a comment section wraps the page only if it holds
  // the heading; and on a short page a footer can hold half the prose, so without the heading it
  // takes an article's worth.
  // A blog's sidebar can outweigh a short post: it is no wrapper when the post under the heading
  // that says the title (a `post`/`entry` box) lies outside it.
  const post = titledPost(root, title, tallies);
  // The box of prose under the heading that says the title is the article, and its ancestors
  // hold it: whatever their names, they stay (their other children are still looked at).
  const titledBox = proseBoxAbove(articleHeading(root, title, true), root, tallies);
  // Comments, sidebars and footers go with an article, which comes first in reading order: an
  // element holding most of the prose, an article's worth, with next to none kept before it is
  // the page's wrapper, whatever it is named (`<div class="sidebar-layout">`, `<article
  // class="disqus-thread">`).
  let proseBefore = 0;
  const wrapsPage = (el: Element, prose: number) => {
    if (prose === 0 || prose < 0.5 * pageProse) return false;
    if (heading && el.contains(heading)) return true;
    if (post && !el.contains(post) && !post.contains(el)) return false;
    if (proseBefore < POST_MIN_PROSE && prose >= ARTICLE_MIN_PROSE) return true;
    // The markup's own word for the content (`<article>`, `<main>`, `itemprop=articleBody`,
    // `entry-content`) over a class beside it.
    if (markedAsContent(el)) return true;
    return prose >= WRAPPER_MIN_PROSE && !namedAsComments(el);
  };
  const visit = (el: Element) => {
    let childrenProse = 0;
    for (let child = el.firstElementChild; child; ) {
      childrenProse += tallies.get(child)?.prose ?? 0;
      let next = child.nextElementSibling;
      if (opensCommentsBox(child, tallies.get(child)?.chars ?? 0)) {
        // Everything after a "Comments" heading, in its parent, is the comments.
        while (next) {
          const after = next.nextElementSibling;
          next.remove();
          next = after;
        }
        child.remove();
        break;
      }
      const prose = tallies.get(child)?.prose ?? 0;
      const named = FURNITURE_TAGS.has(child.tagName.toUpperCase()) || isHidden(child) ? 'furniture' : holdsQuotes(child) ? null : furnitureName(child);
      // A widget, byline or tag box holding the article's heading is the post itself.
      // A byline or tag box is small: one holding half the page's text is a wrapper of it.
      const small = prose < SMALL_FURNITURE_PROSE && (tallies.get(child)?.chars ?? 0) < 0.5 * pageChars;
      const furniture = named === 'furniture' || (named === 'small-furniture' && small && !(heading && child.contains(heading)));
      if (furniture && !wrapsPage(child, prose) && !(titledBox && child.contains(titledBox))) child.remove();
      else {
        // A wrapper kept in spite of its name: Readability, which reads the names too, keeps it as well.
        if (furniture) unnameFurniture(child);
        visit(child);
      }
      child = next;
    }
    // The element's own lines (text outside its child elements), counted after its children's.
    proseBefore += Math.max(0, (tallies.get(el)?.prose ?? 0) - childrenProse);
  };
  visit(root);
}

/** A blockquote, or a box whose text is all in blockquotes (`<div class="social-embed"><blockquote class="twitter-tweet">`). */
function holdsQuotes(el: Element): boolean {
  if (el.tagName.toUpperCase() === 'BLOCKQUOTE') return true;
  const quotes = el.querySelectorAll('blockquote');
  if (!quotes.length) return false;
  let quoted = 0;
  for (const quote of Array.from(quotes)) if (!quote.parentElement?.closest('blockquote')) quoted += textOf(quote).length;
  return quoted > 0 && quoted >= textOf(el).length - QUOTE_WRAPPER_SLACK;
}
/** Characters besides the quotes that a box of quotes may hold (a "View on Twitter" link, a caption). */
const QUOTE_WRAPPER_SLACK = 40;

/** `<article>`, `<main>`, `role=main` or a name of the article body: where the markup says the content is. */
function markedAsContent(el: Element): boolean {
  const tag = el.tagName.toUpperCase();
  return tag === 'ARTICLE' || tag === 'MAIN' || el.getAttribute('role') === 'main' || namedAsArticleBody(el);
}

/** An element's characters and the weight of its blocks, as the region finder weighs them (for comparing candidates). */
export function weighed(el: Element): { chars: number; score: number } {
  const t = tallyTree(el, null).get(el);
  return { chars: t?.chars ?? 0, score: t?.score ?? 0 };
}

/** Share of `a`'s words (each occurrence once) that `b` has too: how far two candidates agree. */
export function sharedWordShare(a: string, b: string): number {
  const wordsOf = (t: string) => t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const wa = wordsOf(a);
  if (!wa.length) return 0;
  const counts = new Map<string, number>();
  for (const w of wordsOf(b)) counts.set(w, (counts.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wa) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w, n - 1);
    }
  }
  return shared / wa.length;
}

const LIST_TAGS = new Set(['UL', 'OL', 'LI', 'DL', 'DT', 'DD', 'TABLE', 'TBODY', 'TR', 'TD', 'TH']);

/**
 * Furniture left inside an article another extractor chose (Readability's): short lines that are
 * mostly one link ("Read also: …", "Lea también: …", a caption's "More photos"). Lists of links
 * stay: inside an article they are as often its content (a post of links) as a related list.
 */
export function cleanArticle(article: Element): void {
  const tallies = tallyTree(article, null);
  const visit = (el: Element) => {
    for (let child = el.firstElementChild; child; ) {
      const next = child.nextElementSibling;
      const t = tallies.get(child);
      const tag = child.tagName.toUpperCase();
      // Headings are often links to the page itself; lists are kept (above).
      if (LIST_TAGS.has(tag) || HEADING.test(tag) || tag === 'BLOCKQUOTE') {
        child = next;
        continue;
      }
      // A headline-long link (a "docs" or "download" link is no teaser) and at most a label
      // outside it ("Read also:", "VEA TAMBIÉN:").
      const readAlso =
        t && t.chars < READ_ALSO_MAX_CHARS && t.linkChars >= READ_ALSO_MIN_LINK_CHARS && BLOCK_TAGS.has(tag) && t.chars - t.linkChars <= READ_ALSO_LABEL_CHARS;
      // One link: several are a list in disguise (lines of links between <br>). A linked
      // sentence without a label ("<a>This week's new episode is a silly party game</a>.") is
      // the text's own; "Read also: <a>…</a>." is not.
      const ownSentence = readAlso && linkedSentence(textOf(child));
      // Recall first: only a link under a label ("Read also: …", "LE PUEDE INTERESAR: …") is
      // another page's teaser; a bare link line ("Follow Jane on Twitter for live updates") is
      // as often the author's call inside the text.
      const labelled = readAlso && LABEL_BEFORE_LINK.test(textOf(child));
      if (readAlso && labelled && child.querySelectorAll('a').length <= 1 && !ownSentence) child.remove();
      else visit(child);
      child = next;
    }
  };
  visit(article);
}
/** A sentence (eight words or more, ending with a full stop), not a headline, and no label ("Mehr:", "Read also:") in front. */
const linkedSentence = (text: string) => /[^.]\.$/.test(text) && text.split(' ').length >= LINKED_SENTENCE_MIN_WORDS && !/^[^.!?]{0,25}:\s/u.test(text);
const LINKED_SENTENCE_MIN_WORDS = 8;
/** A label that ends with a colon or a dash before the link ("Read also:", "MORE —"). */
const LABEL_BEFORE_LINK = /^[^:–—]{1,25}[:–—]\s*\S/u;
const READ_ALSO_MAX_CHARS = 200;
const READ_ALSO_LABEL_CHARS = 25;
const READ_ALSO_MIN_LINK_CHARS = 30;

/** Link lists left inside the chosen region ("read also", tag lists, related links): out. */
function removeLinkLists(region: Element, tallies: Map<Element, Tally>): void {
  const visit = (el: Element) => {
    for (let child = el.firstElementChild; child; ) {
      const next = child.nextElementSibling;
      const t = tallies.get(child);
      const tag = child.tagName.toUpperCase();
      // Quotes and numbered lists are the article's own, links and all (an embedded post, a list of products).
      if (tag === 'BLOCKQUOTE' || tag === 'OL') {
        child = next;
        continue;
      }
      if (t && t.chars > 0 && BLOCK_TAGS.has(tag) && t.linkChars / t.chars > 0.5 && t.prose === 0) child.remove();
      else visit(child);
      child = next;
    }
  };
  visit(region);
}

export interface Region {
  element: Element;
  /** The region's weight: what the candidates are compared by. */
  score: number;
  /** Whether a structural hint (articleBody names, `<article>`, `<main>`) chose it. */
  structural: boolean;
  /** The element as found, before the link lists inside it went out (`weighed`). */
  found: { chars: number; score: number };
}

/**
 * The main region of a page, found on `body` (a copy the caller may give away: it is pruned in
 * place). Furniture is removed first; every block of text is then weighed by the classifier, and
 * the element whose blocks weigh most is the region (the maximum-weight subtree: prose inside it,
 * link lists and scraps around it). An element named as the article body, an `<article>` or a
 * `<main>` with nearly that weight is preferred, being the author's own boundary of the text.
 */
export function mainRegion(body: Element, options: RegionOptions = {}): Region {
  const bodyGrams = options.articleBody ? new Set(trigrams(options.articleBody)) : null;
  const title = options.title ?? '';
  removeFurniture(body, tallyTree(body, bodyGrams), title);
  const tallies = tallyTree(body, bodyGrams);
  let best: Element = body;
  let bestScore = Number.NEGATIVE_INFINITY;
  let named: Element | null = null;
  let namedScore = Number.NEGATIVE_INFINITY;
  for (const [el, t] of tallies) {
    if (t.score > bestScore) {
      best = el;
      bestScore = t.score;
    }
    const tag = el.tagName.toUpperCase();
    if (tag === 'BODY' || tag === 'HTML') continue;
    if (markedAsContent(el) && t.score > namedScore) {
      named = el;
      namedScore = t.score;
    }
  }
  // No block of prose anywhere (a page of headings, labels and links): the page minus its furniture.
  if (bestScore <= 0) return finish({ element: body, score: tallies.get(body)?.score ?? 0, structural: false }, tallies);
  const heaviest = best;
  // One paragraph is rarely all of an article: the parent is taken while it adds prose and keeps
  // most of the weight (a "similar articles" list after the text costs less than the text it joins).
  for (let parent = best.parentElement; parent && parent !== body; parent = parent.parentElement) {
    const t = tallies.get(parent);
    if (!t || t.score < 0.7 * bestScore || t.prose <= (tallies.get(best)?.prose ?? 0)) break;
    best = parent;
  }
  let region: Omit<Region, 'found'> = { element: best, score: tallies.get(best)?.score ?? bestScore, structural: false };
  const article = singleArticleBody(tallies);
  if (article) {
    const score = tallies.get(article)!.score;
    // The one element the page names as its article body wins unless the prose is plainly
    // elsewhere: short posts lose the weighing to an "about this blog" box, not to this test.
    const enough = article.contains(best) ? 0.5 : best.contains(article) ? 0.6 : 0.2;
    if (score > 0 && score >= enough * bestScore) return finish({ element: article, score, structural: true }, tallies);
  }
  if (named && ((best.contains(named) && namedScore >= 0.8 * bestScore) || (named.contains(best) && namedScore >= 0.95 * bestScore))) region = { element: named, score: namedScore, structural: true };
  // The post the page's title names, when the weighing found a heavier box beside it.
  const post = postUnderHeading(body, title, tallies);
  if (post && !post.contains(heaviest) && !heaviest.contains(post)) region = { element: post, score: tallies.get(post)!.score, structural: true };
  return finish(region, tallies);
}

/**
 * The post the article heading (the one the document's title names) heads: its nearest ancestor
 * holding a few sentences of prose. A short post loses the weighing to an "about this blog" box
 * beside it, but the page's own title points at it.
 */
function postUnderHeading(body: Element, title: string, tallies: Map<Element, Tally>): Element | null {
  const box = proseBoxAbove(articleHeading(body, title), body, tallies);
  return box && tallies.get(box)!.score > 0 ? box : null;
}

/** The nearest ancestor of `heading` below `root` holding a post's worth of prose (POST_MIN_PROSE). */
function proseBoxAbove(heading: Element | null, root: Element, tallies: Map<Element, Tally>): Element | null {
  for (let el = heading?.parentElement; el && el !== root; el = el.parentElement) if ((tallies.get(el)?.prose ?? 0) >= POST_MIN_PROSE) return el;
  return null;
}
/** Prose characters of a post: a header row's "Published 11 hours ago" is not one. */
const POST_MIN_PROSE = 100;

/**
 * The element named as the article body (itemprop=articleBody, `entry-content`, `post-body`…)
 * when the page has exactly one outside any other; several mean a listing of teasers.
 */
function singleArticleBody(tallies: Map<Element, Tally>): Element | null {
  let found: Element | null = null;
  for (const [el, t] of tallies) {
    if (t.chars === 0 || !namedAsArticleBody(el)) continue;
    const tag = el.tagName.toUpperCase();
    if (tag === 'BODY' || tag === 'HTML') continue;
    if (found && (el.contains(found) || found.contains(el))) {
      if (el.contains(found)) found = el;
      continue;
    }
    if (found) return null;
    found = el;
  }
  return found;
}

function finish(region: Omit<Region, 'found'>, tallies: Map<Element, Tally>): Region {
  const found = weighed(region.element);
  removeLinkLists(region.element, tallies);
  return { ...region, found };
}

/** The text a reader sees of a node (empty for skipped and hidden elements). */
function visibleText(node: ChildNode): string {
  if (node.nodeType === TEXT) return (node.nodeValue ?? '').trim();
  if (node.nodeType !== ELEMENT) return '';
  const el = node as Element;
  if (SKIP_TAGS.has(el.tagName.toUpperCase()) || isHidden(el)) return '';
  return (el.textContent ?? '').trim();
}

/** The block holding the last text of `root`: the deepest block element its text ends in. */
function lastTextBlock(root: Element): Element | null {
  let el = root;
  for (;;) {
    let last: ChildNode | null = el.lastChild;
    while (last && !visibleText(last)) last = last.previousSibling;
    if (!last) return el === root ? null : el;
    if (last.nodeType !== ELEMENT || !BLOCK_TAGS.has((last as Element).tagName.toUpperCase())) return el === root ? null : el;
    el = last as Element;
  }
}

/**
 * A paragraph the chosen content already has, word for word, again: the same article body twice
 * (a hidden teaser copy and the visible text, a print copy, a mobile and a desktop layout of it)
 * gives the reader one text. Leaf blocks of a sentence's length or more only: short lines ("Read
 * more", a table's repeated cell) repeat by design. The first occurrence stays.
 */
export function removeRepeatedBlocks(root: Element): void {
  const seen = new Set<string>();
  // Returns whether the subtree holds a block, so each element is visited once.
  const visit = (el: Element): boolean => {
    let holdsBlock = false;
    for (let child = el.firstElementChild; child; ) {
      const next = child.nextElementSibling;
      const tag = child.tagName.toUpperCase();
      // Hidden copies are no text (plainText skips them): the visible one must stay.
      if (!SKIP_TAGS.has(tag) && !isHidden(child)) {
        const block = BLOCK_TAGS.has(tag);
        // A block inside an inline element (`<span><p>…</p></span>`) makes every ancestor a non-leaf too.
        const holdsInner = visit(child);
        if (!holdsInner && block && !LINE_TAGS.has(tag)) {
          const text = textOf(child);
          if (text.length >= REPEATED_BLOCK_MIN_CHARS) {
            if (seen.has(text)) child.remove();
            else seen.add(text);
          }
        }
        holdsBlock ||= block || holdsInner;
      }
      child = next;
    }
    return holdsBlock;
  };
  visit(root);
}
const REPEATED_BLOCK_MIN_CHARS = 100;

const LINE_TAGS = new Set(['LI', 'DT', 'DD', 'TD', 'TH', 'TR']);

/** Whether `block` is, or is inside, an item of a list or a table (content, however short). */
function inLineItem(block: Element): boolean {
  for (let e: Element | null = block; e; e = e.parentElement) if (LINE_TAGS.has(e.tagName.toUpperCase())) return true;
  return false;
}

/**
 * A block that closes an article without being part of it: a label left over from a related or
 * share box ("Mehr zum Thema", "You might also like:", "Teilnehmende Blogs:"), a few words with no
 * sentence end, not an item of a list or table (those are content). `box` is the outermost
 * element holding only the block's text.
 */
function trailingLabel(block: Element, box: Element): boolean {
  const text = textOf(block);
  if (copyrightNotice(text) || tagLine(block, text)) return true;
  if (!text || text.length >= LABEL_MAX_CHARS || text.split(' ').length > LABEL_MAX_WORDS) return false;
  if (/[.!?…"”»)\]。！？）」』]$/.test(text)) return false;
  if (inLineItem(block) || quotedContent(block)) return false;
  // The last of a run of same-shaped short blocks (three or more) is an item of a listing.
  let sameShaped = 0;
  for (let previous = box.previousElementSibling; previous && sameShaped < 2; previous = previous.previousElementSibling, sameShaped++) {
    if (previous.tagName !== box.tagName || previous.getAttribute('class') !== box.getAttribute('class')) return true;
    const previousText = textOf(previous);
    if (!previousText || previousText.length >= LABEL_MAX_CHARS) return true;
  }
  return sameShaped < 2;
}
/**
 * The page's copyright line ("© 2012 The Associated Press. All rights reserved.", "Alle Rechte
 * vorbehalten"), left at the end when the footer holding it had no footer name: the site's, not
 * the article's. A short block that starts with the sign or says the phrase.
 */
function copyrightNotice(text: string): boolean {
  return text.length < COPYRIGHT_MAX_CHARS && COPYRIGHT.test(text);
}
const COPYRIGHT =
  /^(?:©|\(c\)\s*\d{4}|copyright\b)|all rights reserved|alle rechte vorbehalten|todos los derechos reservados|tous droits réservés|tutti i diritti riservati|wszelkie prawa zastrzeżone|todos os direitos reservados/i;
const COPYRIGHT_MAX_CHARS = 400;
/**
 * The post's tag or category line ("Tagged as: Mars, Curiosity, Gale crater", "Read More: Tampa
 * Bay Rays, Toronto Blue Jays"): one line, not a list item, of several short links (a few words
 * each, not headlines) with nothing else but a label in front and separators. Taxonomy, not the
 * article.
 */
function tagLine(block: Element, text: string): boolean {
  if (text.length >= TAG_LINE_MAX_CHARS) return false;
  if (inLineItem(block)) return false;
  const links = Array.from(block.querySelectorAll('a[href]'), textOf).filter(Boolean);
  if (links.length < TAG_LINE_MIN_LINKS || links.some((l) => l.split(' ').length > TAG_MAX_WORDS)) return false;
  // Besides the links, a label in front and separators: "contributed by <a>Megan</a>." is a sentence.
  let rest = text;
  for (const link of links) rest = rest.replace(link, ' ');
  return TAG_LINE_REST.test(rest);
}
const TAG_LINE_REST = /^[^,|:.!?]{0,25}:?[\s,|/·•;]*$/u;
const TAG_LINE_MAX_CHARS = 300;
const TAG_LINE_MIN_LINKS = 2;
const TAG_MAX_WORDS = 4;
const LABEL_MAX_CHARS = 60;
const LABEL_MAX_WORDS = 6;
const textOf = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();

/** Labels at the end of the chosen content (their boxes were removed, or Readability kept them): out. */
export function trimTrailingLabels(root: Element): void {
  const total = textOf(root).length;
  let removed = 0;
  // Each look for the last block reads the subtree's text: a bounded number of them keeps this
  // linear in the page whatever it ends with.
  for (let block = lastTextBlock(root), n = 0; block && n < MAX_TRAILING_LABELS; block = lastTextBlock(root), n++) {
    let box = block;
    while (box.parentElement && box.parentElement !== root && textOf(box.parentElement) === textOf(block)) box = box.parentElement;
    if (!trailingLabel(block, box)) return;
    removed += textOf(block).length;
    // Never the whole text: a page of labels is what it is.
    if (removed >= 0.5 * total) return;
    box.remove();
  }
}

const MAX_TRAILING_LABELS = 8;

const BLOCK_SELECTOR = Array.from(BLOCK_TAGS, (t) => t.toLowerCase()).join(',');

/**
 * The standfirst (dek, lede, "bajada"): the paragraph between the article's heading and its body
 * that sums the article up. Themes put it in the header with the heading, outside the body
 * element both candidates choose. Found in `tree` (the pruned copy) as the first paragraph of
 * prose after the heading that says the title, when the next blocks lead into the chosen text
 * (its first words are met within a few blocks); bylines, dates and labels on the way are passed
 * over.
 */
export function standfirst(tree: Element, title: string, chosenText: string): Element | null {
  const heading = articleHeading(tree, title, true);
  if (!heading) return null;
  const chosen = chosenText.replace(/\s+/g, ' ');
  let candidate: Element | null = null;
  let blocks = 0;
  let after = false;
  for (const el of Array.from(tree.querySelectorAll(BLOCK_SELECTOR))) {
    if (!after) {
      after = el === heading;
      continue;
    }
    if (heading.contains(el) || el.querySelector(BLOCK_SELECTOR)) continue;
    const text = textOf(el);
    if (!text) continue;
    if (++blocks > STANDFIRST_MAX_BLOCKS) return null;
    if (chosen.includes(text.slice(0, 80))) return candidate;
    if (candidate || isHidden(el)) continue;
    let linkChars = 0;
    for (const a of Array.from(el.querySelectorAll('a[href]'))) linkChars += textOf(a).length;
    // A standfirst is sentences: a dateline or an image credit ends without a full stop.
    if (!/[.!?…"”»)。！？]$/.test(text)) continue;
    if (text.length >= STANDFIRST_MIN_CHARS && text.split(' ').length >= 8 && linkChars < 0.3 * text.length) candidate = el;
  }
  return null;
}
const STANDFIRST_MAX_BLOCKS = 12;
const STANDFIRST_MIN_CHARS = 60;
