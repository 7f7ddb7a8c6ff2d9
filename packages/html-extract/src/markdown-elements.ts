/** What each HTML element is to the markdown renderer, and the text of code blocks. */
const ELEMENT = 1;
const TEXT = 3;

/** What an element is to markdown; elements not listed are inline (span, sup, sub, abbr, custom elements…). */
export type Kind = 'skip' | 'block' | 'em' | 'strong' | 'del' | 'code' | 'pre' | 'br' | 'img' | 'a' | 'heading' | 'ul' | 'ol' | 'li' | 'quote' | 'table' | 'dt' | 'dd' | 'hr';
/** One lookup per element: the walk's cost is mostly per node. */
export const KINDS = new Map<string, Kind>();
const define = (kind: Kind, tags: string) => tags.split(' ').forEach((tag) => KINDS.set(tag, kind));
// Never content: code, styling, metadata, embedded objects and form controls.
define('skip', 'script style noscript template head title meta link base svg button input select textarea option datalist iframe frame frameset object embed param canvas video audio source track map area colgroup col');
// Paragraphs of their own (table parts too, for layout tables and stray rows).
define('block', 'address article aside body caption center details dialog div dl fieldset figcaption figure footer form header hgroup html legend main nav p section summary tbody thead tfoot tr td th');
define('em', 'em i');
define('strong', 'strong b');
define('del', 'del s strike');
define('code', 'code kbd samp tt');
define('pre', 'pre xmp listing plaintext');
define('heading', 'h1 h2 h3 h4 h5 h6');
define('ul', 'ul menu dir');
define('quote', 'blockquote');
for (const kind of ['br', 'img', 'a', 'ol', 'li', 'table', 'dt', 'dd', 'hr'] as const) define(kind, kind);
/** Kinds that break the line: inside a heading or table cell, they become a space. */
export const BREAKS_LINE = new Set<Kind>(['block', 'heading', 'ul', 'ol', 'li', 'quote', 'table', 'dt', 'dd', 'hr']);

const LANGUAGE = /(?:^|\s)lang(?:uage)?-([^\s`]+)/;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/**
 * Not shown on screen. Unlike plain text (plain-text isHidden), `aria-hidden` content stays:
 * it is hidden from screen readers only, and is often what the page shows, such as
 * Wikipedia's formula images.
 */
export const hidden = (el: Element) => el.hasAttributes() && (el.hasAttribute('hidden') || HIDDEN_STYLE.test(el.getAttribute('style') ?? ''));
export const skipped = (el: Element) => KINDS.get(el.localName) === 'skip' || hidden(el);

const NEW_LINE = Symbol('new line');

/** Text of a subtree as `<pre>` shows it: every character kept, `<br>` a line break. Iterative: code can nest deeply. */
export function preformattedText(root: Element): string {
  // Most code is one text node, in a <code> or two: no collecting needed.
  let only: Node | null = root.firstChild;
  while (only && only.nextSibling === null && only.nodeType === ELEMENT && !skipped(only as Element) && (only as Element).localName !== 'br') {
    only = only.firstChild;
  }
  if (only === null) return '';
  if (only.nodeType === TEXT && only.nextSibling === null) return only.nodeValue ?? '';
  const parts: string[] = [];
  const newLine = () => {
    if (parts.length && !parts[parts.length - 1].endsWith('\n')) parts.push('\n');
  };
  // Nodes still to visit, and NEW_LINE where a block inside the code ends.
  const stack: (Node | typeof NEW_LINE)[] = [];
  for (let child = root.lastChild; child; child = child.previousSibling) stack.push(child);
  while (stack.length) {
    const node = stack.pop()!;
    if (node === NEW_LINE) newLine();
    else if (node.nodeType === TEXT) parts.push(node.nodeValue ?? '');
    else if (node.nodeType === ELEMENT) {
      const el = node as Element;
      if (el.localName === 'br') parts.push('\n');
      else if (!skipped(el)) {
        // A block (a <p> or <div> per line, as some highlighters write) is a line of its own.
        const block = BREAKS_LINE.has(KINDS.get(el.localName)!);
        if (block) {
          newLine();
          stack.push(NEW_LINE);
        }
        for (let child = el.lastChild; child; child = child.previousSibling) stack.push(child);
      }
    }
  }
  return parts.join('');
}

/** The class attribute; not getAttribute('class'), which makes linkedom build a classList. */
const classOf = (el: Element) => el.getAttributeNode('class')?.value ?? '';

/** The language of a code block, from `class="language-x"` or `lang-x` on the `<pre>` or its `<code>`. */
export function languageOf(pre: Element): string {
  const code = pre.firstElementChild;
  const match = LANGUAGE.exec(classOf(pre)) ?? (code?.localName === 'code' ? LANGUAGE.exec(classOf(code)) : null);
  return match?.[1] ?? '';
}
