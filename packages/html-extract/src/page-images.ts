import type { PageImage } from './types.js';
import { absoluteUrl } from './urls.js';

/** Attributes lazy-loading scripts keep the real address in, most specific first. */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src', 'data-full-src'];
const LAZY_SRCSET = ['data-srcset', 'data-lazy-srcset'];
/**
 * `data:` URLs shorter than this are placeholders (1x1 GIFs, empty SVGs sized like the real
 * picture), not pictures; longer ones are real inline images and are kept.
 */
const MIN_DATA_URL_CHARS = 1024;

interface Candidate {
  url: string;
  /** Width in pixels (`w`), or density (`x`) times 1e6 so that any width beats no descriptor. */
  size: number;
}

/** Candidates of a `srcset`, parsed as the HTML standard does: URLs may contain commas. */
function srcsetCandidates(srcset: string): Candidate[] {
  const candidates: Candidate[] = [];
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (srcset[i] === ',' || /\s/.test(srcset[i]))) i++;
    if (i >= n) break;
    let end = i;
    while (end < n && !/\s/.test(srcset[end])) end++;
    let url = srcset.slice(i, end);
    i = end;
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      // Descriptors run to the next comma outside parentheses.
      let depth = 0;
      while (i < n && (depth > 0 || srcset[i] !== ',')) {
        if (srcset[i] === '(') depth++;
        else if (srcset[i] === ')') depth = Math.max(0, depth - 1);
        descriptor += srcset[i++];
      }
      i++;
    }
    if (!url) continue;
    const width = /(?:^|\s)(\d+)w(?:\s|$)/.exec(descriptor);
    const density = /(?:^|\s)(\d*\.?\d+)x(?:\s|$)/.exec(descriptor);
    const size = width ? Number(width[1]) : (density ? Number(density[1]) : 1) * 1e-6;
    candidates.push({ url, size });
  }
  return candidates;
}

/** The largest candidate of a srcset, by width (`800w`) or density (`2x`) descriptor. */
export function largestFromSrcset(srcset: string | null | undefined): string | null {
  if (!srcset) return null;
  let best: Candidate | null = null;
  for (const candidate of srcsetCandidates(srcset)) if (!best || candidate.size > best.size) best = candidate;
  return best?.url ?? null;
}

function isPlaceholder(url: string): boolean {
  return /^data:/i.test(url) && url.length < MIN_DATA_URL_CHARS;
}

function firstAttribute(el: Element, names: string[]): string | null {
  for (const name of names) {
    const value = el.getAttribute(name)?.trim();
    if (value && !isPlaceholder(value)) return value;
  }
  return null;
}

/** The address a browser (after lazy loading ran) would show for an `<img>`, or null. */
function imageAddress(img: Element): string | null {
  const lazySet = largestFromSrcset(firstAttribute(img, LAZY_SRCSET));
  if (lazySet) return lazySet;
  const srcset = largestFromSrcset(img.getAttribute('srcset'));
  if (srcset && !isPlaceholder(srcset)) return srcset;
  const parent = img.parentElement;
  if (parent && parent.tagName.toUpperCase() === 'PICTURE') {
    for (const source of Array.from(parent.querySelectorAll('source'))) {
      const url = largestFromSrcset(firstAttribute(source, ['srcset', ...LAZY_SRCSET]));
      if (url && !isPlaceholder(url)) return url;
    }
  }
  const lazy = firstAttribute(img, LAZY_SRC);
  if (lazy) return lazy;
  const src = img.getAttribute('src')?.trim();
  return src && !isPlaceholder(src) ? src : null;
}

/**
 * Every image of the page: `src`, the largest `srcset` candidate, lazy-loading attributes and
 * `<picture><source>`, absolute against the base URL, deduplicated, tiny `data:` placeholders
 * dropped. `og:image` is metadata, not an image of the page, and is not listed here.
 */
export function collectImages(document: Document, baseUrl: string): PageImage[] {
  const byUrl = new Map<string, PageImage>();
  for (const img of Array.from(document.querySelectorAll('img'))) {
    const raw = imageAddress(img);
    if (!raw) continue;
    const url = /^data:/i.test(raw) ? raw : absoluteUrl(raw, baseUrl);
    if (!url || !/^(https?|data):/i.test(url)) continue;
    const alt = (img.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim();
    const seen = byUrl.get(url);
    // The same picture often appears twice (a lazy <img> and its <noscript> copy): one entry,
    // with a description if either has one.
    if (!seen) byUrl.set(url, { url, alt });
    else if (!seen.alt && alt) seen.alt = alt;
  }
  return [...byUrl.values()];
}
