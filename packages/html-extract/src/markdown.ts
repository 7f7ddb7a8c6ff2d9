import { domToMarkdown } from './markdown-render.js';
import { absoluteUrl } from './urls.js';

const KEPT_AS_WRITTEN = /^(data|javascript|mailto|tel):/i;
/**
 * References that resolve without a parse: absolute http(s) URLs that `new URL` returns
 * unchanged (lowercase host, a path, only characters it never encodes, no dot segment, plain or
 * percent-encoded), and plain root- or path-relative references against an http(s) base.
 * Checked against `new URL` on every href and src of the web corpus with five bases (100,690
 * pairs, no difference). They are most links on most pages, and parsing each one was about a
 * tenth of the markdown step's time and garbage.
 */
const CANONICAL_URL = /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*\/[\w\-.~!$&()*+,;=:@%/?#]*$/;
const PLAIN_RELATIVE = /^(?:\/(?!\/)|[\w\-~!$&()*+,;=@%])[\w\-.~!$&()*+,;=@%/?#]*$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:[/?#]|$)/i;

/** The origin and directory of an http(s) base URL without credentials, which plain references resolve against. */
function plainBase(baseUrl: string): { origin: string; directory: string } | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
  return { origin: url.origin, directory: url.origin + url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1) };
}

/**
 * How link and image addresses are resolved: against `baseUrl`, except what is no address to
 * resolve (`data:`, `mailto:`…) and, as Readability does, same-page fragments (`#notes`) unless
 * a `<base href>` points elsewhere.
 */
function addressResolver(baseUrl: string, documentUrl: string): (value: string) => string {
  const fragmentsStay = baseUrl.split('#')[0] === documentUrl.split('#')[0];
  const base = plainBase(baseUrl);
  return (value) => {
    if ((fragmentsStay && value.startsWith('#')) || KEPT_AS_WRITTEN.test(value)) return value;
    if (!DOT_SEGMENT.test(value)) {
      if (CANONICAL_URL.test(value)) return value;
      if (base && PLAIN_RELATIVE.test(value)) return (value.startsWith('/') ? base.origin : base.directory) + value;
    }
    return absoluteUrl(value, baseUrl) ?? value;
  };
}

/**
 * Makes links and images of an extracted subtree absolute (Readability leaves them as written
 * when the DOM has no URL), so readers outside the page can follow them. renderMarkdown resolves
 * the addresses it writes by itself; this is for callers that keep the subtree.
 */
export function absolutizeUrls(root: Element, baseUrl: string, documentUrl = baseUrl): void {
  const resolve = addressResolver(baseUrl, documentUrl);
  for (const el of Array.from(root.querySelectorAll('a[href], img[src], source[src], video[src], audio[src], video[poster]'))) {
    for (const attr of ['href', 'src', 'poster']) {
      const value = el.getAttribute(attr)?.trim();
      const resolved = value && resolve(value);
      if (resolved && resolved !== value) el.setAttribute(attr, resolved);
    }
  }
}

export interface MarkdownOptions {
  /** Links and images are written absolute, resolved against this URL (the subtree is not changed). */
  baseUrl?: string;
  /** The page's own URL, when `baseUrl` comes from a `<base href>`: decides about `#fragment` links. */
  documentUrl?: string;
}

/**
 * Markdown of a DOM subtree (GFM tables, fenced code), in time linear in its size: one walk over
 * the parsed elements (markdown-render). It replaced node-html-markdown, which serialises and
 * re-parses the HTML and whose cost grows faster than the input (bench/html-extract.ts).
 */
export function renderMarkdown(root: Element, options: MarkdownOptions = {}): string {
  const resolve = options.baseUrl ? addressResolver(options.baseUrl, options.documentUrl ?? options.baseUrl) : undefined;
  return domToMarkdown(root, resolve);
}
