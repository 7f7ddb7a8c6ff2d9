import path from 'node:path';

/** RFC 5987 `filename*=charset'lang'percent-encoded`; only UTF-8 and Latin-1 occur in practice. */
function decodeExtended(value: string): string | undefined {
  const m = /^([\w-]*)'[^']*'(.*)$/.exec(value.trim());
  if (!m) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < m[2].length; i++) {
    const c = m[2][i];
    if (c === '%' && /^[0-9a-f]{2}$/i.test(m[2].slice(i + 1, i + 3))) {
      bytes.push(parseInt(m[2].slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0) & 0xff);
  }
  return Buffer.from(bytes).toString(/^utf-?8$/i.test(m[1]) ? 'utf8' : 'latin1');
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * A name only: no directories (a server may send `../../x`), no control characters, at most
 * 255 characters. Callers may show it or use it as a hint, never as a path.
 */
function sanitise(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const base = name.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean === '' || clean === '.' || clean === '..' ? undefined : clean;
}

/** File name from Content-Disposition (`filename*` preferred, as RFC 6266 says), else the URL path. */
export function fileNameOf(disposition: string | undefined, finalUrl: string): string | undefined {
  const extended = /(?:^|;)\s*filename\*\s*=\s*([^;]+)/i.exec(disposition ?? '');
  const fromExtended = extended ? sanitise(decodeExtended(extended[1].replace(/^"|"$/g, ''))) : undefined;
  if (fromExtended) return fromExtended;
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/i.exec(disposition ?? '');
  const fromPlain = plain ? sanitise((plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]).trim()) : undefined;
  if (fromPlain) return fromPlain;
  return sanitise(decodePathSegment(path.posix.basename(new URL(finalUrl).pathname)));
}
