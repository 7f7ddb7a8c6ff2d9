/** Elements that start and end a paragraph of their own. */
const BLOCK = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CAPTION', 'CENTER', 'DETAILS', 'DIALOG', 'DIR', 'DIV', 'DL', 'FIELDSET',
  'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HGROUP', 'HR', 'HTML', 'LEGEND', 'MAIN',
  'MENU', 'NAV', 'OL', 'P', 'SECTION', 'SUMMARY', 'TABLE', 'UL',
]);
/** Elements that are one line each inside a block: list items, table rows, definition terms. */
const LINE = new Set(['LI', 'TR', 'DT', 'DD', 'OPTION']);
/** Never text: code, styling, embedded objects, form controls, ruby annotations (readings set above the text). */
const SKIP = new Set([
  'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'TITLE', 'IFRAME', 'OBJECT', 'EMBED', 'CANVAS', 'BUTTON', 'SELECT',
  'INPUT', 'TEXTAREA', 'IMG', 'VIDEO', 'AUDIO', 'MAP', 'RT', 'RP',
]);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;
const ELEMENT = 1;
const TEXT = 3;
/** Marks a table-cell boundary inside a line until whitespace is collapsed. */
const CELL = '\u0001';

/** True for nodes a reader never sees: `hidden`, `aria-hidden="true"`, inline `display:none`. */
export function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = el.getAttribute('style');
  return style !== null && HIDDEN_STYLE.test(style);
}

/**
 * Readable plain text of a DOM subtree: block elements become paragraphs separated by a blank
 * line; `<br>`, list items and table rows become line breaks (two `<br>` in a row a paragraph
 * break); table cells are separated by tabs; whitespace inside a paragraph is collapsed to single
 * spaces; `<pre>` keeps its spacing and lines. Scripts, styles, hidden nodes and form controls
 * contribute nothing.
 */
export function plainText(root: Node): string {
  const out: string[] = [];
  let line = '';
  /** Line breaks owed before the next text: 0, 1 (new line) or 2 (new paragraph). */
  let pending = 0;
  let lastWasBr = false;

  const emit = (text: string) => {
    if (out.length) out.push(pending >= 2 ? '\n\n' : pending === 1 ? '\n' : ' ');
    out.push(text);
    pending = 0;
  };
  const flush = () => {
    if (!line) return;
    const text = line
      .replace(/\s+/g, ' ')
      .replace(/ ?\u0001 ?/g, CELL)
      .replace(/^\u0001+|\u0001+$/g, '')
      .replace(/\u0001+/g, '\t')
      .trim();
    line = '';
    if (text) {
      emit(text);
      lastWasBr = false;
    }
  };
  const breakAtLeast = (n: number) => {
    flush();
    if (n > pending) pending = n;
  };

  const preformatted = (el: Element): string => {
    let text = '';
    const collect = (node: Node) => {
      for (let child = node.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === TEXT) text += child.nodeValue ?? '';
        else if (child.nodeType === ELEMENT) {
          const tag = (child as Element).tagName.toUpperCase();
          if (tag === 'BR') text += '\n';
          else if (!SKIP.has(tag) && !isHidden(child as Element)) collect(child);
        }
      }
    };
    collect(el);
    // The first newline after <pre> is not content (HTML parsing rule); trailing blank lines are noise.
    return text.replace(/^\r?\n/, '').replace(/\s+$/, '').replace(/\r\n?/g, '\n');
  };

  const walk = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT) {
        const value = child.nodeValue ?? '';
        line += value;
        if (lastWasBr && /\S/.test(value)) lastWasBr = false;
        continue;
      }
      if (child.nodeType !== ELEMENT) continue;
      const el = child as Element;
      const tag = el.tagName.toUpperCase();
      if (SKIP.has(tag) || isHidden(el)) continue;
      if (tag === 'BR') {
        flush();
        // Two <br> in a row separate paragraphs, as they do on screen.
        breakAtLeast(lastWasBr ? 2 : 1);
        lastWasBr = true;
        continue;
      }
      if (tag === 'PRE' || tag === 'XMP' || tag === 'LISTING') {
        breakAtLeast(2);
        const text = preformatted(el);
        if (text.trim()) emit(text);
        breakAtLeast(2);
        continue;
      }
      if (tag === 'TD' || tag === 'TH') {
        walk(el);
        line += CELL;
        continue;
      }
      const separation = BLOCK.has(tag) ? 2 : LINE.has(tag) ? 1 : 0;
      if (tag === 'HR') {
        breakAtLeast(2);
        continue;
      }
      if (separation) breakAtLeast(separation);
      walk(el);
      if (separation) breakAtLeast(separation);
    }
  };

  if (root.nodeType === ELEMENT && SKIP.has((root as Element).tagName.toUpperCase())) return '';
  walk(root);
  flush();
  return out.join('');
}
