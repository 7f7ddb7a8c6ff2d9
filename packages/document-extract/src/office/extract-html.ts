import { parse } from 'node-html-parser';
import { DocumentError } from '../errors.js';
import { detectBom } from '../txt/binary-check.js';
import { decodeWindows1252, decoderFor } from '../txt/charset.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { htmlFileToMarkdown } from './html-to-markdown.js';
import { htmlToText } from './html-to-text.js';
import { htmlFromMht, isMht } from './mht.js';

/**
 * HTML and MHT files, which arrive as documents mostly as Word "Web page" saves named .doc.
 * This is the simple path (no readability, no scripts): the body's text, or its markdown.
 */
export async function extractHtml(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  let source = bytes;
  let charset: string | null = null;
  const notes: string[] = [];
  if (isMht(bytes.subarray(0, 4096).toString('latin1'))) {
    const part = htmlFromMht(bytes);
    if (!part) throw new DocumentError('400-001', 'Invalid file type', ['the MIME HTML (.mht) archive holds no text/html part']);
    ({ bytes: source, charset } = part);
    notes.push('read the HTML part of a MIME HTML (.mht) archive');
  }

  const decoded = decodeHtml(source, charset);
  notes.push(`decoded as ${decoded.encoding}`);
  // Word's downlevel-revealed conditionals (<![if !supportLists]>) are not comments: drop the markers.
  const html = decoded.text.replace(/<!\[(?:end)?if[^\]]*\]>/gi, '');
  const text = opts.output === 'markdown' ? htmlFileToMarkdown(html) : htmlFilePlainText(html);
  opts.onProgress?.(1, 1);
  return { kind: 'html', pages: [text], notes, ocrPages: 0 };
}

/** The plain text of an HTML file's body (browser whitespace rules). */
export function htmlFilePlainText(html: string): string {
  const root = parse(html, { comment: false, blockTextElements: { script: true, style: true, noscript: true, pre: true } });
  return htmlToText(root.querySelector('body') ?? root, { preserveWhitespace: false });
}

/** BOM, then the declared charset (MIME part or <meta>), then UTF-8 if valid, else windows-1252. */
function decodeHtml(bytes: Buffer, declared: string | null): { text: string; encoding: string } {
  const bom = detectBom(bytes);
  if (bom) return { text: new TextDecoder(bom.encoding).decode(bytes), encoding: bom.encoding };
  const label = declared ?? metaCharset(bytes.subarray(0, 4096).toString('latin1'));
  const decode = label ? decoderFor(label) : null;
  if (label && decode) return { text: decode(bytes), encoding: label.toLowerCase() };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
}

function metaCharset(head: string): string | null {
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? null;
}
