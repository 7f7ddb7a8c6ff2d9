import { DocumentError } from '../errors.js';

/** SPEC "Limits": text file line length 1 MB; at most 1,000,000 lines. */
export const MAX_LINE_BYTES = 1024 * 1024;
export const MAX_LINES = 1_000_000;

/**
 * Checks the limits on decoded text. Line length is counted in bytes of the source encoding
 * (UTF-8 bytes, or two per UTF-16 code unit), so "1 MB" means what it says for every file.
 */
export function assertTextLimits(text: string, byteLength: (line: string) => number): void {
  let lines = 0;
  let start = 0;
  const lineBreak = /\r\n|\r|\n/g;
  for (;;) {
    const match = lineBreak.exec(text);
    const end = match ? match.index : text.length;
    if (end > start || match) {
      lines++;
      if (lines > MAX_LINES) {
        throw new DocumentError('400-001', 'The text file exceeds a limit', [`the file has more than ${MAX_LINES.toLocaleString('en-US')} lines`]);
      }
      // Cheap bounds first: a code unit is 1 to 3 bytes in any encoding we decode.
      const units = end - start;
      if (units > MAX_LINE_BYTES || (units * 3 > MAX_LINE_BYTES && byteLength(text.slice(start, end)) > MAX_LINE_BYTES)) {
        throw new DocumentError('400-001', 'The text file exceeds a limit', [`line ${lines} is longer than 1 MB (the limit for a line)`]);
      }
    }
    if (!match) return;
    start = lineBreak.lastIndex;
  }
}
