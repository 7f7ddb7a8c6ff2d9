import { Readability } from '@mozilla/readability';
import type { ReadabilityMeta } from './page-meta.js';
import { isHidden } from './plain-text.js';

export interface MainContent {
  element: Element;
  meta: ReadabilityMeta;
}

/**
 * MathJax 3 renders each formula as a `<mjx-container class="MathJax CtxtMenu_…">` holding glyph
 * boxes (no text) and an assistive MathML copy. Readability's "unlikely candidate" rule matches
 * "Menu" in that class and deletes every formula. The MathML copy alone is the formula: the
 * container is replaced by it, which also keeps the glyph boxes out of text and markdown.
 */
export function keepMathJaxFormulas(document: Document): void {
  for (const container of Array.from(document.querySelectorAll('mjx-container'))) {
    const math = container.querySelector('math');
    if (math) container.replaceWith(math);
    else container.remove();
  }
}

/** Attributes by which Readability (and a furniture test) would read an element as furniture or hidden. */
const FURNITURE_ATTRIBUTES = ['class', 'id', 'role', 'style', 'hidden', 'aria-hidden', 'aria-modal'];

/**
 * Takes from `<html>` and `<body>` the names, roles and hiding that describe the page as a whole
 * (`<html class="header-spacing">`, `<body class="modal-open sidebar-left">`, an anti-flicker
 * `<body style="display:none">`): Readability reads them as it reads any element's, and would
 * remove the root (and with it the page: linkedom's document then has no documentElement) or
 * the body. Nothing reads them after the metadata, which is read first.
 */
export function neutralizeRoots(document: Document): void {
  for (const root of [document.documentElement, document.body]) {
    if (root) for (const name of FURNITURE_ATTRIBUTES) root.removeAttribute(name);
  }
}

/**
 * Readability reads an embedded post as boilerplate twice over: a box around the quote named
 * like a social bar (`<div class="social-embed">`) is an unlikely candidate, and the boxes of
 * links inside an Instagram or Facebook blockquote are link lists it cleans away. Quoted content
 * is the author's (boilerplate.ts, quotedContent): a box that holds nothing but a quote gives way
 * to the quote, and the boxes inside a quote become its paragraphs, before Readability reads them
 * (its conditional cleaning weighs divs, lists and tables, not blockquotes).
 */
export function keepQuotesForReadability(document: Document): void {
  for (const quote of Array.from(document.querySelectorAll('blockquote'))) {
    // The outermost box holding nothing but the quote is replaced by it.
    let box: Element | null = null;
    for (let up = quote.parentElement; up && up !== document.body && up.tagName.toUpperCase() !== 'BLOCKQUOTE' && textOf(up) === textOf(quote); up = up.parentElement) box = up;
    if (box) box.replaceWith(quote);
    for (const inner of Array.from(quote.querySelectorAll('div'))) {
      const paragraph = document.createElement('p');
      paragraph.append(...Array.from(inner.childNodes));
      inner.replaceWith(paragraph);
    }
  }
}
const textOf = (el: Element) => (el.textContent ?? '').replace(/\s+/g, ' ').trim();

/**
 * The article as Readability finds it (the element itself, not serialised HTML, so text and
 * markdown are produced without a second parse). Readability mutates the document: callers read
 * everything else first, and have called keepMathJaxFormulas. Null when Readability finds nothing.
 */
export function readabilityContent(document: Document): MainContent | null {
  const reader = new Readability<Element>(document, { serializer: (el) => el as Element, charThreshold: 500 });
  const article = reader.parse();
  if (!article?.content) return null;
  return {
    element: article.content,
    meta: { title: article.title, byline: article.byline, excerpt: article.excerpt, siteName: article.siteName, publishedTime: article.publishedTime, lang: article.lang },
  };
}

/** Page chrome that is never main content (the brief's list, plus its ARIA spellings). */
const CHROME = 'nav, footer, aside, dialog, [role="navigation"], [role="contentinfo"], [role="complementary"], [role="dialog"]';

/**
 * Fallback for pages where Readability finds nothing useful (short pages, listings, home pages):
 * the body without navigation, footers, asides and hidden nodes, or the whole body if that leaves
 * no text. (Scripts, styles, templates are gone since prepareHtml; noscript is skipped as text.)
 */
export function fallbackContent(document: Document): Element {
  const body = document.body ?? document.documentElement;
  const trimmed = body.cloneNode(true) as Element;
  for (const el of Array.from(trimmed.querySelectorAll(`${CHROME}, noscript, [hidden], [aria-hidden], [style]`))) {
    if (el.matches('[aria-hidden], [style], [hidden]') && !isHidden(el)) continue;
    el.remove();
  }
  return /\S/.test(trimmed.textContent ?? '') ? trimmed : body;
}
