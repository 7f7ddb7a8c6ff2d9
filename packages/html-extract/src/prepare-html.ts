import { capNesting } from './cap-nesting.js';

/**
 * Removes what no extractor output can ever contain before the HTML is parsed: scripts (except
 * JSON-LD, read for metadata), styles, inline SVG, templates, stylesheet links and comments.
 * Parsing them costs time and nodes (an SVG icon is dozens of nodes), and dropping them first
 * guarantees that no script or style text reaches the output whatever the later steps do.
 *
 * One left-to-right scan, so whichever construct starts first wins: a `<!--` inside a script's
 * code cannot swallow the page after it, and a comment that mentions `<script>` is removed as a
 * comment. Tag names must end (`<svg-icon>` is not `<svg>`), and a self-closing `<svg/>` ends
 * there (SVG is foreign content, where `/>` closes). An element that is never closed, or a tag
 * without its `>`, is left for the parser.
 *
 * Linear time is the point of the scanner: the regular expression it replaces rescanned the rest
 * of the page for every unclosed `<script` or `<svg` (40,000 of them in 391 KB took 2.9 s).
 */
const OPENER = /<!--|<(script|style|template|noembed|svg)(?=[\s/>])|<link\b/gi;

const JSON_LD = /\btype\s*=\s*["']?application\/ld\+json/i;

/** What may precede the body in a document that omits `<head>` and `<body>` tags (HTML allows that). */
const LEADING_HEAD =
  /^(?:\s+|<!doctype[^>]*>|<html(?=[\s>/])[^>]*>|<head(?=[\s>/])[^>]*>|<title(?=[\s>/])[^>]*>[\s\S]*?<\/title\s*>|<(?:meta|link|base)(?=[\s>/])[^>]*>|<script(?=[\s>/])[^>]*>[\s\S]*?<\/script\s*>)*/i;

interface Found {
  index: number;
  end: number;
}

/**
 * The first match of a global pattern at or after `from`, remembered: asked again from a later
 * position that is still before that match, it answers without searching. The scanner asks from
 * increasing positions, so every stretch of text is searched once however many openers share
 * the same (or no) closer; that is what keeps a page of unclosed tags linear.
 */
function forwardFinder(text: string, pattern: RegExp): (from: number) => Found | null {
  let searchedFrom = Number.POSITIVE_INFINITY;
  let found: Found | null = null;
  return (from) => {
    if (from >= searchedFrom && (found === null || from <= found.index)) return found;
    pattern.lastIndex = from;
    const match = pattern.exec(text);
    searchedFrom = from;
    found = match ? { index: match.index, end: match.index + match[0].length } : null;
    return found;
  };
}

/** Where the construct opened at `opener` ends, or -1 when it is incomplete; and whether to keep it. */
type ConstructEnd = (opener: RegExpExecArray) => { end: number; keep: boolean };

function constructScanner(html: string): ConstructEnd {
  const nextGt = forwardFinder(html, />/g);
  const nextStylesheetRel = forwardFinder(html, /\brel\s*=\s*["']?stylesheet/gi);
  const closers = new Map<string, (from: number) => Found | null>();
  const nextClose = (name: string, from: number): Found | null => {
    let finder = closers.get(name);
    // An end tag is `</name` and whatever follows up to its `>` ("</script\n<!-- … -->" ends the
    // script at that comment's `>`, as browsers read it); the `>` is found by nextGt.
    if (!finder) closers.set(name, (finder = forwardFinder(html, new RegExp(`</${name}(?=[\\s/>])`, 'gi'))));
    return finder(from);
  };
  const incomplete = { end: -1, keep: false };

  return (opener) => {
    const start = opener.index;
    const afterName = start + opener[0].length;
    if (opener[0] === '<!--') {
      const close = html.indexOf('-->', afterName);
      return { end: close === -1 ? html.length : close + 3, keep: false };
    }
    const gt = nextGt(afterName)?.index ?? -1;
    if (gt === -1) return incomplete;
    const name = opener[1]?.toLowerCase();
    if (name === undefined) {
      // <link …>: dropped only when it is a stylesheet.
      const rel = nextStylesheetRel(afterName);
      return rel !== null && rel.index < gt ? { end: gt + 1, keep: false } : incomplete;
    }
    if (name === 'svg' && gt > afterName && html[gt - 1] === '/') return { end: gt + 1, keep: false };
    const close = nextClose(name, gt + 1);
    const closeGt = close && nextGt(close.end);
    if (!closeGt) return incomplete;
    // JSON-LD is metadata (title, author, dates): kept for page-meta.
    return { end: closeGt.end, keep: name === 'script' && JSON_LD.test(html.slice(afterName, gt)) };
  };
}

function stripNonContent(html: string): string {
  const opener = new RegExp(OPENER.source, OPENER.flags);
  const endOf = constructScanner(html);
  const kept: string[] = [];
  let copiedTo = 0;
  let match: RegExpExecArray | null;
  while ((match = opener.exec(html))) {
    const { end, keep } = endOf(match);
    if (end === -1) continue;
    if (!keep) {
      kept.push(html.slice(copiedTo, match.index));
      copiedTo = end;
    }
    opener.lastIndex = end;
  }
  kept.push(html.slice(copiedTo));
  return kept.join('');
}

/** The first `<name …>` start tag; if the first opener has no `>` after it, no later one has. */
function firstStartTag(text: string, name: string): Found | null {
  const opener = new RegExp(`<${name}(?=[\\s>/])`, 'i').exec(text);
  if (!opener) return null;
  const gt = text.indexOf('>', opener.index + opener[0].length);
  return gt === -1 ? null : { index: opener.index, end: gt + 1 };
}

/** Removes every tag that `opener` starts, up to its `>`; stops at the first one without `>`. */
function removeTags(text: string, opener: RegExp): string {
  const kept: string[] = [];
  let copiedTo = 0;
  let match: RegExpExecArray | null;
  while ((match = opener.exec(text))) {
    const gt = text.indexOf('>', match.index + match[0].length);
    if (gt === -1) break;
    kept.push(text.slice(copiedTo, match.index));
    copiedTo = opener.lastIndex = gt + 1;
  }
  kept.push(text.slice(copiedTo));
  return kept.join('');
}

/**
 * Rewrites the document as `<html><head>…</head><body>…</body></html>`. Browsers build that shape
 * whatever the markup says (the tags are optional, and content after `</body>` still belongs to
 * the body); linkedom does not, and leaves such content outside `<body>`, where Readability and
 * every body query would miss it.
 */
function normalizeDocumentShape(html: string): string {
  let head: string;
  let body: string;
  let bodyTag = '<body>';
  const bodyOpen = firstStartTag(html, 'body');
  if (bodyOpen) {
    head = html.slice(0, bodyOpen.index);
    body = html.slice(bodyOpen.end);
    bodyTag = html.slice(bodyOpen.index, bodyOpen.end);
  } else {
    const headClose = /<\/head\s*>/i.exec(html);
    const split = headClose ? headClose.index + headClose[0].length : LEADING_HEAD.exec(html)![0].length;
    head = html.slice(0, split);
    body = html.slice(split);
  }
  const htmlOpen = firstStartTag(head, 'html');
  const htmlTag = htmlOpen ? head.slice(htmlOpen.index, htmlOpen.end) : '<html>';
  head = removeTags(head, /<!doctype|<\/?(?:html|head)(?=[\s>/])/gi);
  body = removeTags(body, /<\/?(?:html|head|body)(?=[\s>/])/gi);
  return `<!doctype html>${htmlTag}<head>${head}</head>${bodyTag}${body}</body></html>`;
}

/** Everything done to the markup before it is parsed; linear in its length. */
export function prepareHtml(html: string): string {
  return capNesting(normalizeDocumentShape(stripNonContent(html)));
}
