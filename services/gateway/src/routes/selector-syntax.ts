import { JSDOM } from 'jsdom';
import xpath from 'xpath';

/** API-DECISIONS: a selector starting with `/`, `./` or `(` is XPath, anything else CSS. */
export function isXPathSelector(selector: string): boolean {
  return /^\s*(\/|\.\/|\()/.test(selector);
}

/**
 * XPath is evaluated by the `xpath` package, as in the scraper worker (select-elements.ts says
 * why not jsdom's); `parse` is exported but missing from its type declarations.
 */
const parseXPath = (xpath as unknown as { parse(expression: string): { evaluate(options: { node: Node; isHtml: boolean }): unknown } }).parse;

let probe: JSDOM | null = null;

const firstLine = (err: unknown) => String((err as Error)?.message ?? '').split('\n')[0].trim().slice(0, 200);

/**
 * Syntax check at submit, so an invalid selector is a 400 before any fetch. Evaluated against a
 * tiny empty document (cheap); the worker evaluates it against the real page with a time budget
 * (and finds there what only evaluation shows, such as an unknown XPath function in a predicate,
 * also a 400). The message is never empty.
 */
export function selectorProblem(selector: string): string | null {
  probe ??= new JSDOM('<!doctype html><html><body></body></html>');
  const { document } = probe.window;
  if (!isXPathSelector(selector)) {
    try {
      document.querySelectorAll(selector);
      return null;
    } catch (err) {
      return `invalid CSS selector: ${firstLine(err) || 'syntax error'}`;
    }
  }
  let parsed: ReturnType<typeof parseXPath>;
  try {
    parsed = parseXPath(selector);
  } catch (err) {
    const reason = firstLine(err);
    return `invalid XPath selector: ${!reason || reason === 'XPath parse error' ? 'syntax error (not an XPath 1.0 expression)' : reason}`;
  }
  try {
    parsed.evaluate({ node: document as unknown as Node, isHtml: true });
    return null;
  } catch (err) {
    return `unsupported XPath expression: ${firstLine(err) || 'it cannot be evaluated'}`;
  }
}
