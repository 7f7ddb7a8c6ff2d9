import { DocumentError } from '../errors.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { looksBinary, looksBinaryText } from './binary-check.js';
import { cleanText } from './clean-text.js';
import { decodeText } from './decode-text.js';
import { assertTextLimits } from './text-limits.js';
import { txtPageToMarkdown } from './txt-to-markdown.js';

const FORM_FEED = '\f';

/** Plain text files per SPEC "txt": decoding, control characters, form-feed pages, markdown rules. */
export async function extractTxt(bytes: Uint8Array, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  if (looksBinary(bytes)) throw binary();
  const decoded = decodeText(bytes);
  if (decoded.encoding.startsWith('utf-16') && looksBinaryText(decoded.text)) throw binary();

  assertTextLimits(decoded.text, (line) => (decoded.encoding === 'utf-8' ? Buffer.byteLength(line, 'utf8') : decoded.encoding === 'windows-1252' ? line.length : line.length * 2));

  const cleaned = cleanText(decoded.text);
  const notes = [decoded.note];
  if (cleaned.removed > 0) notes.push(`removed ${cleaned.removed} control characters (including terminal escape sequences)`);

  // A form feed ends a page, so a file ending in one has an empty last page, as printed.
  const pages = cleaned.text.split(FORM_FEED).map((page) => (opts.output === 'markdown' ? txtPageToMarkdown(page) : page));
  opts.onProgress?.(pages.length, pages.length);
  return { kind: 'txt', pages, notes, ocrPages: 0, encoding: decoded.encoding };
}

function binary(): DocumentError {
  return new DocumentError('400-001', 'Binary files are not supported', ['binary file sent as txt: NUL bytes or many control characters in the first 8 KB']);
}
