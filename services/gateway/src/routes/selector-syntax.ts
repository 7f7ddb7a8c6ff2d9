import { JSDOM } from 'jsdom';

/** API-DECISIONS: a selector starting with `/`, `./` or `(` is XPath, anything else CSS. */
export function isXPathSelector(selector: string): boolean {
  return /^\s*(\/|\.\/|\()/.test(selector);
}

let probe: JSDOM | null = null;

/**
 * Syntax check at submit, so an invalid selector is a 400 before any fetch. Evaluated against a
 * tiny empty document (cheap); the worker evaluates it against the real page with a time budget.
 */
export function selectorProblem(selector: string): string | null {
  probe ??= new JSDOM('<!doctype html><html><body></body></html>');
  const { document, XPathResult } = probe.window;
  try {
    if (isXPathSelector(selector)) document.evaluate(selector, document, null, XPathResult.ANY_TYPE, null);
    else document.querySelectorAll(selector);
    return null;
  } catch (err) {
    return `invalid ${isXPathSelector(selector) ? 'XPath' : 'CSS'} selector: ${(err as Error).message.split('\n')[0].slice(0, 200)}`;
  }
}
