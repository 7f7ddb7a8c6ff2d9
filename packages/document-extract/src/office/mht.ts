/**
 * The HTML part of a MIME HTML archive (.mht, Word's "Single File Web Page", often named .doc):
 * the first text/html part, with its transfer encoding undone. Returns the bytes and the
 * part's charset; images and other parts are ignored.
 */
export interface MhtHtml {
  bytes: Buffer;
  charset: string | null;
}

export function htmlFromMht(source: Buffer): MhtHtml | null {
  return findHtml(source.toString('latin1'), 0);
}

const MAX_NESTING = 4;

function findHtml(entity: string, depth: number): MhtHtml | null {
  const { headers, body } = splitEntity(entity);
  const contentType = headers.get('content-type') ?? 'text/plain';
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType.startsWith('multipart/')) {
    const boundary = parameter(contentType, 'boundary');
    if (!boundary || depth >= MAX_NESTING) return null;
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const html = findHtml(part.replace(/^\r?\n/, ''), depth + 1);
      if (html) return html;
    }
    return null;
  }
  if (mediaType !== 'text/html') return null;
  return { bytes: decodeTransfer(body, headers.get('content-transfer-encoding') ?? '7bit'), charset: parameter(contentType, 'charset') };
}

function splitEntity(entity: string): { headers: Map<string, string>; body: string } {
  const end = /\r?\n\r?\n/.exec(entity);
  const head = end ? entity.slice(0, end.index) : entity;
  const body = end ? entity.slice(end.index + end[0].length) : '';
  const headers = new Map<string, string>();
  // Folded header lines continue with whitespace.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function parameter(header: string, name: string): string | null {
  const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(header);
  return match ? (match[1] ?? match[2]) : null;
}

function decodeTransfer(body: string, encoding: string): Buffer {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return Buffer.from(
        body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      );
    default:
      return Buffer.from(body, 'latin1');
  }
}

/** A MIME message header block that declares MIME-Version comes first in an .mht file. */
export function isMht(head: string): boolean {
  const lower = head.trimStart().slice(0, 4096).toLowerCase();
  const headerBlock = lower.split(/\r?\n\r?\n/)[0];
  return /^[\w-]+:/.test(lower) && /(?:^|\n)mime-version:/.test(headerBlock) && /content-type:\s*(?:multipart\/related|text\/html)/.test(headerBlock);
}
