/** The media type of a Content-Type value, lowercased, without parameters ("" when absent). */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export function isHtmlType(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

export function isPlainTextType(mediaType: string): boolean {
  return mediaType === 'text/plain';
}

/** Magic numbers of the files people most often send to the scraper instead of /documents. */
const SIGNATURES: Array<[string, number[]]> = [
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/x-ole-storage', [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
];

/** The first 4 KB as text, enough to recognise markup; UTF-16 only when a BOM says so. */
function headText(bytes: Buffer): { text: string; utf16: boolean } {
  const head = bytes.subarray(0, 4096);
  if (head[0] === 0xff && head[1] === 0xfe) return { text: head.subarray(2).toString('utf16le'), utf16: true };
  if (head[0] === 0xfe && head[1] === 0xff) {
    const even = head.subarray(2, 2 + ((head.length - 2) & ~1));
    return { text: Buffer.from(even).swap16().toString('utf16le'), utf16: true };
  }
  return { text: head.toString('latin1'), utf16: false };
}

const MARKUP_START = /^(?:\ufeff|\xef\xbb\xbf)?\s*(?:<!doctype html|<html|<head|<body|<!--)/i;
const MARKUP_TAG = /<(?:p|div|title|a|br|table|h[1-6])\b[^>]*>/i;

/**
 * For a body served without Content-Type: a binary type when it starts with a known signature or
 * holds NUL bytes, 'text/html' when it looks like markup, else 'text/plain'.
 */
export function sniffMediaType(bytes: Buffer): string {
  for (const [type, magic] of SIGNATURES) {
    if (magic.every((b, i) => bytes[i] === b)) return type;
  }
  const { text, utf16 } = headText(bytes);
  if (!utf16 && text.includes('\0')) return 'application/octet-stream';
  if (MARKUP_START.test(text) || MARKUP_TAG.test(text)) return 'text/html';
  return 'text/plain';
}
