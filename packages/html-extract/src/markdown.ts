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
 * How link and image addresses are resolved: against `baseUrl` (the page URL, or its `<base
 * href>`), except what is no address to resolve (`data:`, `mailto:`…). Same-page fragments
 * (`#cite_note-1`) are resolved too, as a browser does: the markdown is read away from the page,
 * where a bare `#…` leads nowhere.
 */
function addressResolver(baseUrl: string): (value: string) => string {
  const base = plainBase(baseUrl);
  return (value) => {
    if (KEPT_AS_WRITTEN.test(value)) return value;
    if (!DOT_SEGMENT.test(value)) {
      if (CANONICAL_URL.test(value)) return value;
      if (base && PLAIN_RELATIVE.test(value)) return (value.startsWith('/') ? base.origin : base.directory) + value;
    }
    return absoluteUrl(value, baseUrl) ?? value;
  };
}

export interface MarkdownOptions {
  /** Links and images are written absolute, resolved against this URL (the subtree is not changed). */
  baseUrl?: string;
  /**
   * The tables are a document's (Word, OpenDocument, EPUB, an HTML file), not a web page's: every
   * table of more than one cell holds data (a page lays itself out with tables, a document does
   * not), a cell's paragraphs, lists and nested tables are written on its line, merged cells
   * repeat their text in every cell they cover (as Docling and pandoc's grid spreading do), and
   * the first row is the header when none is marked.
   */
  documentTables?: boolean;
}

/**
 * Markdown of a DOM subtree (GFM tables, fenced code), in time linear in its size: one walk over
 * the parsed elements (markdown-render). It replaced node-html-markdown, which serialises and
 * re-parses the HTML and whose cost grows faster than the input (bench/html-extract.ts).
 */
export function renderMarkdown(root: Element, options: MarkdownOptions = {}): string {
  const resolve = options.baseUrl ? addressResolver(options.baseUrl) : undefined;
  return domToMarkdown(root, resolve, options.documentTables === true);
}
