import { createHash } from 'node:crypto';

export interface NormalizeOptions {
  /** `ignore_query`: the query is dropped, so `/a?x=1` and `/a?x=2` are one page. */
  ignoreQuery?: boolean;
}

/** Tracking parameters that never change what a page shows. */
const TRACKING_PARAMETER = /^(utm_[a-z0-9_]*|gclid|fbclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi)$/i;

/** Directory index names a server answers for the directory itself (`/docs/` and `/docs/index.html`). */
const INDEX_FILE = /\/(index|default)\.(html?|php|aspx?)$/i;

/**
 * One spelling per page, so that a crawl fetches each page once however its links write it:
 * http(s) only; scheme and host lower-cased (the WHATWG URL parser does that, and punycodes the
 * host); default ports, credentials and the fragment dropped; `/index.html` and its kind cut to
 * the directory; the trailing slash dropped (but `/` itself kept); percent-encoding upper-cased
 * and unreserved characters decoded; query parameters sorted, tracking ones (`utm_*`, `gclid`…)
 * and empty queries dropped. Null for anything that is not an http(s) URL.
 *
 * The trailing slash is a choice: `/docs/` and `/docs` are the same page on nearly every site,
 * and the few where they differ redirect one to the other, which the crawl follows and records.
 */
export function normalizeUrl(input: string, options: NormalizeOptions = {}): string | null {
  return cleanUrl(input, options, true);
}

/**
 * The URL a crawl fetches for a link: `normalizeUrl`'s form, but with the path's trailing slash
 * and index file as the link wrote them (a server that has `/docs/` would otherwise answer `/docs`
 * with a redirect, one more request a page).
 */
export function fetchableUrl(input: string, options: NormalizeOptions = {}): string | null {
  return cleanUrl(input, options, false);
}

function cleanUrl(input: string, options: NormalizeOptions, foldPath: boolean): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  // The parser already drops a port equal to the scheme's default (`:80` on http, `:443` on https).
  let path = normalizePercentEncoding(url.pathname.replace(/\/{2,}/g, '/'));
  if (foldPath) {
    path = path.replace(INDEX_FILE, '/');
    if (path.length > 1 && path.endsWith('/')) path = path.replace(/\/+$/, '');
  }
  url.pathname = path || '/';
  if (options.ignoreQuery) {
    url.search = '';
  } else {
    const kept = [...url.searchParams].filter(([name]) => !TRACKING_PARAMETER.test(name));
    kept.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
    url.search = kept.length ? new URLSearchParams(kept).toString() : '';
  }
  return url.href;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** `%7e` → `~`, `%2f` stays encoded but upper-cased (`%2F`): RFC 3986 §6.2.2. */
function normalizePercentEncoding(path: string): string {
  return path.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * The key a crawl's Redis sets keep for a normalised URL: 64 bits of its SHA-1 in hex (16
 * characters instead of a URL's ~80; two URLs of one crawl collide with odds of 1 in 10^8 at a
 * million URLs). Hex, so the key can also name a page's render job (BullMQ ids refuse `:`).
 */
export function urlKey(normalized: string): string {
  return createHash('sha1').update(normalized).digest('hex').slice(0, 16);
}

/** The host a URL's politeness is counted against: its hostname and any non-default port. */
export function hostOf(url: string): string {
  return new URL(url).host;
}
