/**
 * Binary sniffing for text files (SPEC: "Binary files are not supported").
 * Text may carry a few control characters (form feeds, ANSI escapes in man pages),
 * but a NUL byte or a high share of C0 controls in the first 8 KB means binary data.
 */
export const SNIFF_LENGTH = 8 * 1024;
const MAX_CONTROL_RATIO = 0.05;

export type TextBom = 'utf-8' | 'utf-16le' | 'utf-16be';

export function detectBom(bytes: Uint8Array): { encoding: TextBom; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

/** True when the head of an 8-bit (non-UTF-16) file looks like binary data. */
export function looksBinary(bytes: Uint8Array): boolean {
  // UTF-16 text is full of NUL bytes by nature; its BOM tells us it is text.
  const bom = detectBom(bytes);
  if (bom && bom.encoding !== 'utf-8') return false;
  const length = Math.min(bytes.length, SNIFF_LENGTH);
  let controls = 0;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i];
    if (byte === 0) return true;
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d) || byte === 0x7f) controls++;
  }
  return length > 0 && controls / length > MAX_CONTROL_RATIO;
}

/** The same test on already decoded text (UTF-16 files, whose bytes cannot be sniffed). */
export function looksBinaryText(text: string): boolean {
  const head = text.slice(0, SNIFF_LENGTH);
  if (head.includes('\0')) return true;
  const controls = head.match(/[\x01-\x08\x0b\x0e-\x1f\x7f]/g)?.length ?? 0;
  return head.length > 0 && controls / head.length > MAX_CONTROL_RATIO;
}
