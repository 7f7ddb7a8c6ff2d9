import { finishMarkdownNotes, noteMarker } from '../office/docx-html.js';
import { renderBuiltHtml } from '../office/html-to-markdown.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { OdfHtmlWriter, translateOdf } from './odf-html.js';
import { openOdfPackage, readOdfStyles } from './odf-package.js';

/**
 * OpenDocument text (.odt): the body of content.xml as headings, paragraphs, lists and tables
 * (odf-html.ts), footnotes and endnotes after it, as for Word. Like a .docx it stores no
 * layout: it is one page (LibreOffice's soft page breaks only record where it last paginated).
 */
export async function extractOdt(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const { pkg, content } = await openOdfPackage(bytes, 'the .odt');
  const styles = await readOdfStyles(pkg, content);
  const writer = new OdfHtmlWriter(styles, (label) => noteMarker(label, opts.output));
  translateOdf(content, writer);
  writer.flushItems();
  const notes = writer.notes.map((note) => `<p>${noteMarker(note.label, opts.output)}${opts.output === 'markdown' ? ':' : ''} ${note.html}</p>`);
  const text = renderBuiltHtml(writer.sink.html.join('') + notes.join(''), opts.output);
  opts.onProgress?.(1, 1);
  return { kind: 'odt', pages: [opts.output === 'markdown' ? finishMarkdownNotes(text) : text], notes: [], ocrPages: 0 };
}
