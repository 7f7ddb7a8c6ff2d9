import { JSDOM, VirtualConsole } from 'jsdom';

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

/**
 * v1 basic mode: outer HTML and text of every element the selector matches (joined by newlines),
 * or the whole page without a selector. XPath may also select attributes, text nodes or values.
 */
export function selectElements(html: string, url: string, selector?: string): { html: string; text: string; matches: number } {
  const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  const { document } = dom.window;
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
      const { XPathResult } = dom.window;
      let result: XPathResult;
      try {
        result = document.evaluate(selector, document, null, XPathResult.ANY_TYPE, null);
      } catch (err) {
        throw new SelectorError(`invalid XPath selector: ${(err as Error).message.split('\n')[0]}`);
      }
      switch (result.resultType) {
        case XPathResult.NUMBER_TYPE:
          return { html: String(result.numberValue), text: String(result.numberValue), matches: 1 };
        case XPathResult.STRING_TYPE:
          return { html: result.stringValue, text: result.stringValue, matches: 1 };
        case XPathResult.BOOLEAN_TYPE:
          return { html: String(result.booleanValue), text: String(result.booleanValue), matches: 1 };
        default: {
          const nodes: Node[] = [];
          for (let n = result.iterateNext(); n; n = result.iterateNext()) nodes.push(n);
          nodes.forEach(addNode);
        }
      }
    } else {
      let nodes: NodeListOf<Element>;
      try {
        nodes = document.querySelectorAll(selector);
      } catch (err) {
        throw new SelectorError(`invalid CSS selector: ${(err as Error).message.split('\n')[0]}`);
      }
      nodes.forEach(addNode);
    }
    return { html: htmlParts.join('\n'), text: textParts.join('\n'), matches: htmlParts.length };
  } finally {
    dom.window.close();
  }
}
