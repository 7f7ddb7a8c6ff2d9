import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { extractTxt } from './extract-txt.js';

/**
 * Markdown files: text files (decoding, control characters, limits and form-feed pages as for a
 * .txt) whose text is markdown already, so both outputs give it as written: rewriting it with
 * the .txt markdown rules would escape its own syntax.
 */
export async function extractMd(bytes: Uint8Array, opts: ExtractOptions): Promise<ExtractedDocument> {
  const text = await extractTxt(bytes, { ...opts, output: 'plain' });
  return { ...text, kind: 'md' };
}
