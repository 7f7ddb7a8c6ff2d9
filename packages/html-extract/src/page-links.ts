import type { PageLink } from './types.js';
import { absoluteUrl, siteOf } from './urls.js';

/** Links that do not lead to a document: scripts, inline data, browser internals. */
const DROPPED_SCHEMES = /^(javascript|data|vbscript|about|blob):/i;

function linkText(a: Element): string {
  const text = (a.textContent ?? '').replace(/\s+/g, ' ').trim();
  if (text) return text;
  // Icon links: their accessible name is the best text there is.
  const named = a.getAttribute('aria-label') ?? a.getAttribute('title') ?? a.querySelector('img[alt]')?.getAttribute('alt') ?? '';
  return named.replace(/\s+/g, ' ').trim();
}

/**
 * Every `<a href>` on the page (navigation and footer included), absolute, typed `internal` when
 * on the same registrable domain as the page, `external` otherwise; `mailto:` and `tel:` keep
 * their own types; script and data links and same-page fragments are dropped; duplicates
 * (ignoring the fragment) keep the first non-empty text.
 */
export function collectLinks(document: Document, pageUrl: string, baseUrl: string): PageLink[] {
  const pageSite = siteOf(pageUrl);
  const pageWithoutHash = pageUrl.split('#')[0];
  const byUrl = new Map<string, PageLink>();
  for (const a of Array.from(document.querySelectorAll('a[href], area[href]'))) {
    const href = a.getAttribute('href')!.trim();
    if (!href || href.startsWith('#') || DROPPED_SCHEMES.test(href)) continue;
    let url: string | null;
    let type: PageLink['type'];
    if (/^mailto:/i.test(href)) {
      url = href;
      type = 'mailto';
    } else if (/^tel:/i.test(href)) {
      url = href.replace(/[\s().-]+/g, '');
      type = 'tel';
    } else {
      url = absoluteUrl(href, baseUrl);
      // Other schemes (ftp:, sms:, app links) are not pages a scraper can follow.
      if (!url || !/^https?:/i.test(url)) continue;
      // `<a href="page.html#top">` on page.html is a same-page fragment written out in full.
      if (url.includes('#') && url.split('#')[0] === pageWithoutHash) continue;
      type = siteOf(url) === pageSite ? 'internal' : 'external';
    }
    const key = url.split('#')[0];
    const text = linkText(a);
    const existing = byUrl.get(key);
    if (!existing) byUrl.set(key, { text, url, type });
    else if (!existing.text && text) existing.text = text;
  }
  return [...byUrl.values()];
}
