import WordExtractor from 'word-extractor';
import { DocumentError } from '../errors.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { classifyOle } from './ole-kind.js';
import { isOle } from './ole-directory.js';
import { joinParts, linesToMarkdown, tidyLines } from './plain-lines.js';

/**
 * word-extractor's Document accessors. The bundled typings omit the options argument, but the
 * library reads `filterUnicode` (lib/document.js); we turn that filter off because it flattens
 * curly quotes and dashes to ASCII ("–" → "-"), which changes the document's text.
 */
interface WordText {
  getBody(options?: { filterUnicode?: boolean }): string;
  getFootnotes(options?: { filterUnicode?: boolean }): string;
  getEndnotes(options?: { filterUnicode?: boolean }): string;
  getHeaders(options?: { includeFooters?: boolean; filterUnicode?: boolean }): string;
  getFooters(options?: { filterUnicode?: boolean }): string;
  getTextboxes(options?: { includeHeadersAndFooters?: boolean; includeBody?: boolean; filterUnicode?: boolean }): string;
}

const RAW = { filterUnicode: false } as const;

/**
 * Word 97-2003 binary (.doc) through word-extractor: body (table cells become tabs, tracked
 * deletions removed by the library, field codes dropped), text boxes, footnotes and endnotes
 * after the body, headers before it and footers after it. Comments (annotations) are left out.
 * Pages are split where the body has a page break or a section break starting a new page (our
 * patch of word-extractor keeps those as form feeds; the library turned them into newlines): a
 * .doc, like a .docx, stores no pagination of its own.
 */
export async function extractDoc(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  assertReadableWordOle(bytes);

  let document: WordText;
  try {
    document = (await new WordExtractor().extract(bytes)) as unknown as WordText;
  } catch (error) {
    throw mapLibraryError(error);
  }

  // Only the body's form feeds are pages; elsewhere (a header, a footnote) one is a line break.
  const lines = (text: string) => tidyLines(text.replace(/\f/g, '\n'));
  const headers = lines(document.getHeaders({ includeFooters: false, ...RAW }));
  const footers = lines(document.getFooters(RAW));
  // Kept raw until formatted: the tab ending a table row is what tells rows in markdown.
  const bodyPages = document.getBody(RAW).split('\f');
  const afterBody = [
    document.getTextboxes({ includeBody: true, includeHeadersAndFooters: false, ...RAW }),
    document.getFootnotes(RAW),
    document.getEndnotes(RAW),
  ].map(lines);

  // A break at the very end (Word's last section mark) makes no page of its own.
  while (bodyPages.length > 1 && tidyLines(bodyPages[bodyPages.length - 1]) === '') bodyPages.pop();
  const pageParts = bodyPages.map((page) => [page]);
  pageParts[0].unshift(headers);
  pageParts[pageParts.length - 1].push(...afterBody, footers);
  const format = (parts: string[]) => joinParts(parts.map(opts.output === 'markdown' ? linesToMarkdown : tidyLines));
  const pages = pageParts.map(format);
  opts.onProgress?.(pages.length, pages.length);
  return { kind: 'doc', pages, notes: [], ocrPages: 0 };
}

function assertReadableWordOle(bytes: Buffer): void {
  if (!isOle(bytes)) throw new DocumentError('400-001', 'Invalid file type', ['the file is not a Word 97-2003 (.doc) document']);
  switch (classifyOle(bytes)) {
    case 'encrypted-word':
    case 'encrypted-ooxml':
      throw new DocumentError('400-001', 'Password-protected documents are not supported', ['the Word document is password-protected (encrypted)']);
    case 'word6':
      throw new DocumentError('400-001', 'Unsupported file type', ['Word 6.0/95 documents are not supported; save the file as .docx']);
    case 'excel':
    case 'powerpoint':
    case 'other':
      throw new DocumentError('400-001', 'Unsupported file type', ['the OLE file holds no Word document (e.g. an Excel or PowerPoint file)']);
    case 'unreadable':
      throw damaged('the OLE container of the document is damaged');
    case 'word97':
      return;
  }
}

/**
 * word-extractor fails on damaged or unusual files with plain Errors; those that mean "this file
 * is broken" become 400-001. Anything else is our failure on a file that looked valid (500-001,
 * assigned by the caller).
 */
function mapLibraryError(error: unknown): unknown {
  // By name, not instanceof: Buffer's RangeError may come from another realm (e.g. under jest).
  const { name, message } = typeof error === 'object' && error !== null ? (error as Partial<Error>) : { name: '', message: String(error) };
  if (name === 'RangeError') return damaged('the document structure points outside the file (damaged or encrypted)');
  if (/invalid magic number|not a valid compound document|invalid short sector|corrupted|unable to read this type of file/i.test(message ?? '')) {
    return damaged(message ?? '');
  }
  return error;
}

function damaged(detail: string): DocumentError {
  return new DocumentError('400-001', 'The document is damaged', [detail]);
}
