import { capNesting, parseDocument, renderMarkdown } from '@gleaner/html-extract/markdown';
import { parse } from 'node-html-parser';
import type { OutputFormat } from '../types.js';
import { htmlToText } from './html-to-text.js';

/**
 * Markdown of a document's HTML with html-extract's renderer (GFM tables, lists, emphasis; linear
 * in the input) in its document mode: every table of more than one cell is data, a cell's blocks
 * stay on its line, merged cells are spread, the first row heads the table.
 */

/** HTML our readers made (mammoth's for Word, the OpenDocument, slide and EPUB readers'): a body's content. */
export function fragmentToMarkdown(html: string): string {
  const document = parseDocument(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`);
  return renderMarkdown(document.body ?? document.documentElement, { documentTables: true });
}

/**
 * An HTML file as sent: its body, with the nesting depth capped first (the markup is the
 * sender's). With `packaged` (an EPUB's chapters), references to other files of the package
 * lead nowhere once the text is read apart: a picture is its alternative text, a link its text.
 */
export function htmlFileToMarkdown(html: string, options: { packaged?: boolean } = {}): string {
  // linkedom builds no body around a fragment: a file that is only its body's content is wrapped.
  const whole = /<(html|body)[\s>]/i.test(html.slice(0, 64 * 1024)) ? html : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  const document = parseDocument(capNesting(whole));
  const root = document.body ?? document.documentElement;
  if (options.packaged) dropPackageReferences(root);
  return renderMarkdown(root, { documentTables: true });
}

const EXTERNAL = /^(https?|mailto):/i;

function dropPackageReferences(root: Element): void {
  for (const image of [...root.querySelectorAll('img')]) {
    if (EXTERNAL.test(image.getAttribute('src') ?? '')) continue;
    const alt = image.getAttribute('alt')?.trim();
    if (alt) image.replaceWith(image.ownerDocument.createTextNode(alt));
    else image.remove();
  }
  for (const link of [...root.querySelectorAll('a[href]')]) {
    if (!EXTERNAL.test(link.getAttribute('href') ?? '')) link.removeAttribute('href');
  }
}

/** The text of HTML our readers built, in the output asked for: markdown, or plain text (htmlToText). */
export function renderBuiltHtml(html: string, output: OutputFormat): string {
  return output === 'markdown' ? fragmentToMarkdown(html) : htmlToText(parse(html), { preserveWhitespace: false });
}
