/**
 * Removes what no extractor output can ever contain before the HTML is parsed: scripts (except
 * JSON-LD, read for metadata), styles, inline SVG, templates, stylesheet links and comments.
 * Parsing them costs time and nodes (an SVG icon is dozens of nodes), and dropping them first
 * guarantees that no script or style text reaches the output whatever the later steps do.
 *
 * One alternation, scanned left to right, so whichever construct starts first wins: a `<!--`
 * inside a script's code cannot swallow the page after it, and a comment that mentions
 * `<script>` is removed as a comment. Tag names must end (`<svg-icon>` is not `<svg>`), and a
 * self-closing `<svg/>` ends there (SVG is foreign content, where `/>` closes).
 */
const STRIPPED =
  /<!--[\s\S]*?(?:-->|$)|<(script|style|template|noembed)(?=[\s/>])([^>]*)>[\s\S]*?<\/\1\s*>|<svg(?=[\s/>])[^>]*?(?:\/>|>[\s\S]*?<\/svg\s*>)|<link\b[^>]*\brel\s*=\s*["']?stylesheet[^>]*>/gi;

const JSON_LD = /\btype\s*=\s*["']?application\/ld\+json/i;

/** What may precede the body in a document that omits `<head>` and `<body>` tags (HTML allows that). */
const LEADING_HEAD =
  /^(?:\s+|<!doctype[^>]*>|<html(?=[\s>/])[^>]*>|<head(?=[\s>/])[^>]*>|<title(?=[\s>/])[^>]*>[\s\S]*?<\/title\s*>|<(?:meta|link|base)(?=[\s>/])[^>]*>|<script(?=[\s>/])[^>]*>[\s\S]*?<\/script\s*>)*/i;

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
  const bodyOpen = /<body(?=[\s>/])[^>]*>/i.exec(html);
  if (bodyOpen) {
    head = html.slice(0, bodyOpen.index);
    body = html.slice(bodyOpen.index + bodyOpen[0].length);
    bodyTag = bodyOpen[0];
  } else {
    const headClose = /<\/head\s*>/i.exec(html);
    const split = headClose ? headClose.index + headClose[0].length : LEADING_HEAD.exec(html)![0].length;
    head = html.slice(0, split);
    body = html.slice(split);
  }
  const htmlTag = /<html(?=[\s>/])[^>]*>/i.exec(head)?.[0] ?? '<html>';
  head = head.replace(/<!doctype[^>]*>|<\/?(?:html|head)(?=[\s>/])[^>]*>/gi, '');
  body = body.replace(/<\/?(?:html|head|body)(?=[\s>/])[^>]*>/gi, '');
  return `<!doctype html>${htmlTag}<head>${head}</head>${bodyTag}${body}</body></html>`;
}

export function prepareHtml(html: string): string {
  const stripped = html.replace(STRIPPED, (match: string, tag: string | undefined, attributes: string | undefined) => {
    if (!tag) return '';
    // JSON-LD is metadata (title, author, dates): kept for page-meta.
    return tag.toLowerCase() === 'script' && JSON_LD.test(attributes ?? '') ? match : '';
  });
  return normalizeDocumentShape(stripped);
}
