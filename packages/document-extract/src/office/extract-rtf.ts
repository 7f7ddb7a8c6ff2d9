import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { joinParts, linesToMarkdown, tidyLines } from './plain-lines.js';
import { rtfToText } from './rtf-to-text.js';

/**
 * RTF (often sent named .doc): text, table cells as tabs, pages at \page, headers before the
 * body, footnotes and footers after it, like the Word readers. Formatting is not kept: markdown
 * output is paragraphs, and tables as pipe tables.
 */
export async function extractRtf(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const rtf = rtfToText(bytes);
  const render = (text: string): string => (opts.output === 'markdown' ? linesToMarkdown(text) : tidyLines(text));

  const pages = rtf.pages.map(render);
  pages[0] = joinParts([...rtf.headers.map(render), pages[0]]);
  pages[pages.length - 1] = joinParts([pages[pages.length - 1], ...rtf.notes.map(render), ...rtf.footers.map(render)]);
  opts.onProgress?.(pages.length, pages.length);
  return { kind: 'rtf', pages, notes: [], ocrPages: 0 };
}
