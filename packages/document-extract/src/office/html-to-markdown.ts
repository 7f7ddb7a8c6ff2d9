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

/** An HTML file as sent: its body, with the nesting depth capped first (the markup is the sender's). */
export function htmlFileToMarkdown(html: string): string {
  const document = parseDocument(capNesting(html));
  return renderMarkdown(document.body ?? document.documentElement, { documentTables: true });
}

/** The text of HTML our readers built, in the output asked for: markdown, or plain text (htmlToText). */
export function renderBuiltHtml(html: string, output: OutputFormat): string {
  return output === 'markdown' ? fragmentToMarkdown(html) : htmlToText(parse(html), { preserveWhitespace: false });
}
