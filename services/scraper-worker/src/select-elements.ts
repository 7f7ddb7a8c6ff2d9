import { JSDOM, VirtualConsole } from 'jsdom';
import { capNesting } from '@gleaner/html-extract';
import xpath from 'xpath';

export class SelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/** API-DECISIONS: a selector starting with `/`, `./` or `(` is XPath, anything else CSS. */
export function isXPath(selector: string): boolean {
  return /^\s*(\/|\.\/|\()/.test(selector);
}

/** The value of an XPath 1.0 expression as the `xpath` package returns it. */
interface XPathValue {
  toArray?: () => Node[];
  stringValue(): string;
}

/**
 * `xpath.parse` is exported by the package but missing from its type declarations. `isHtml`
 * makes names match HTML elements case-insensitively and without a namespace prefix, as XPath in
 * a browser does on an HTML document.
 */
const parseXPath = (xpath as unknown as { parse(expression: string): { evaluate(options: { node: Node; isHtml: boolean }): XPathValue } }).parse;

/**
 * Evaluates an XPath 1.0 expression with the `xpath` package rather than jsdom's
 * document.evaluate: jsdom's evaluator fails on valid XPath (`local-name()` and `name()` without
 * an argument throw "Cannot read properties of undefined", `namespace-uri()` and `lang()` are
 * not implemented) and is far slower (`//h1` over a 4.5 MB page took 312 s, against 0.6 s).
 * Throws SelectorError with a message that is never empty.
 */
export function evaluateXPath(expression: string, document: Document): XPathValue {
  let parsed: ReturnType<typeof parseXPath>;
  try {
    parsed = parseXPath(expression);
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0].trim();
    throw new SelectorError(`invalid XPath selector: ${!reason || reason === 'XPath parse error' ? 'syntax error (not an XPath 1.0 expression)' : reason}`);
  }
  try {
    return parsed.evaluate({ node: document, isHtml: true });
  } catch (err) {
    const reason = (err as Error).message.split('\n')[0].trim();
    throw new SelectorError(`unsupported XPath expression: ${reason || 'it cannot be evaluated'}`);
  }
}

const BLOCK_TAGS = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'LI', 'TR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'BR', 'TABLE', 'UL', 'OL', 'HEADER', 'FOOTER', 'BLOCKQUOTE', 'PRE']);
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);

/** Visible text of a node: script and style dropped, block boundaries kept as line breaks. */
function textOf(node: Node): string {
  const parts: string[] = [];
  const walk = (n: Node) => {
    if (n.nodeType === 3) parts.push(n.nodeValue ?? '');
    else if (n.nodeType === 1 || n.nodeType === 9 || n.nodeType === 11) {
      const tag = (n as Element).tagName;
      if (tag && SKIP_TAGS.has(tag)) return;
      const block = tag && BLOCK_TAGS.has(tag);
      if (block) parts.push('\n');
      n.childNodes.forEach(walk);
      if (block) parts.push('\n');
    }
  };
  walk(node);
  return parts
    .join('')
    .split('\n')
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/** What the caller is told as the work moves on, so that it can time the phases apart. */
export type SelectPhase = 'parsing' | 'selecting';

/**
 * v1 basic mode: outer HTML and text of every element the selector matches (joined by newlines),
 * or the whole page without a selector. XPath may also select attributes, text nodes or values.
 * `onPhase` is told when parsing starts and when it is done: a slow parse is our failure, a slow
 * selector the caller's, and only the caller of this function can stop either.
 */
export function selectElements(html: string, url: string, selector?: string, onPhase: (phase: SelectPhase) => void = () => {}): { html: string; text: string; matches: number } {
  onPhase('parsing');
  // Nesting past MAX_DEPTH is flattened first, as for the current scraper: jsdom spends ~25 s on
  // 20,000 nested <div> and then overflows its stack. Pages below the cap are parsed unchanged.
  const dom = new JSDOM(capNesting(html), { url, virtualConsole: new VirtualConsole() });
  const { document } = dom.window;
  onPhase('selecting');
  try {
    if (!selector) return { html, text: textOf(document.body ?? document.documentElement), matches: 1 };
    const htmlParts: string[] = [];
    const textParts: string[] = [];
    const addNode = (node: Node) => {
      if (node.nodeType === 1) {
        htmlParts.push((node as Element).outerHTML);
        textParts.push(textOf(node));
      } else {
        // Attribute and text nodes: their value is both the "html" and the text.
        const value = (node.nodeValue ?? node.textContent ?? '').trim();
        htmlParts.push(value);
        textParts.push(value);
      }
    };
    if (isXPath(selector)) {
      const value = evaluateXPath(selector, document);
      if (!value.toArray) {
        // number(), string() and boolean() results: their XPath string value.
        const text = value.stringValue();
        return { html: text, text, matches: 1 };
      }
      value.toArray().forEach(addNode);
    } else {
      let nodes: NodeListOf<Element>;
      try {
        nodes = document.querySelectorAll(selector);
      } catch (err) {
        throw new SelectorError(`invalid CSS selector: ${(err as Error).message.split('\n')[0] || 'syntax error'}`);
      }
      nodes.forEach(addNode);
    }
    return { html: htmlParts.join('\n'), text: textParts.join('\n'), matches: htmlParts.length };
  } finally {
    dom.window.close();
  }
}
