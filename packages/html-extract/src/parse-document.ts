import { parseHTML } from 'linkedom';

/**
 * Parses prepared HTML (see prepareHtml, which also caps the nesting depth: linkedom's parser
 * is quadratic in it). linkedom, not jsdom: see the README's design notes for the measurements.
 * linkedom has no notion of the page URL, so URLs are resolved by the callers.
 */
export function parseDocument(html: string): Document {
  return parseHTML(html).document as unknown as Document;
}
