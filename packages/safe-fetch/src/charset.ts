import chardet from 'chardet';
import iconv from 'iconv-lite';

/** `<meta charset=…>` and `<meta http-equiv="Content-Type" content="…; charset=…">` alike. */
const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)/i;
/** Browsers' prescan reads 1 KB; pages with long heads put the meta later, so a little more. */
const META_SCAN_BYTES = 4096;
const DETECT_SAMPLE_BYTES = 64 * 1024;

export type CharsetSource = 'bom' | 'header' | 'meta' | 'detected' | 'default';

/** Charset named by a Content-Type header value, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? '')?.[1];
}

/** Charset declared by a `<meta>` in the first bytes of an HTML document, if any. */
export function charsetFromMeta(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, META_SCAN_BYTES).toString('latin1').replace(/<!--[\s\S]*?-->/g, '');
  return META_CHARSET.exec(head)?.[1];
}

function bomCharset(bytes: Buffer): { charset: string; skip: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { charset: 'utf-8', skip: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { charset: 'utf-16le', skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { charset: 'utf-16be', skip: 2 };
  return undefined;
}

function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Text without markup, scripts and entities: tags are ASCII and drown the statistics. */
function withoutMarkup(sample: Buffer): Buffer {
  const text = sample
    .toString('latin1')
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>|&#?\w+;/g, ' ');
  return Buffer.from(text, 'latin1');
}

const LATIN_FAMILY = /^(ISO-8859-(1|2|3|4|9|10|13|14|15|16)|windows-125[0247])$/i;
const WESTERN = /^(ISO-8859-1|windows-1252)$/i;

/**
 * Statistical detection for documents that name no charset. Valid UTF-8 is UTF-8 (pure ASCII
 * included). Within the Latin family the detector often ranks a neighbour (ISO-8859-2) just above
 * ISO-8859-1 on French or Spanish text; windows-1252 is so much more common on the web that it
 * wins unless the detector is clearly more confident in the other. Cyrillic, Greek, CJK… are
 * taken as ranked.
 */
export function detectCharset(bytes: Buffer, isHtml: boolean): string | undefined {
  let sample = bytes.subarray(0, DETECT_SAMPLE_BYTES);
  // A cut in the middle of a multi-byte sequence must not make UTF-8 look invalid.
  if (sample.length < bytes.length) sample = sample.subarray(0, trimPartialUtf8(sample));
  if (sample.length === 0 || isValidUtf8(sample)) return 'utf-8';
  const ranked = chardet.analyse(isHtml ? withoutMarkup(sample) : sample);
  const top = ranked[0];
  if (!top) return undefined;
  const western = ranked.find((r) => WESTERN.test(r.name));
  if (western && LATIN_FAMILY.test(top.name) && western.confidence >= top.confidence * 0.6) return 'windows-1252';
  return top.name;
}

/** Length of `sample` without a trailing incomplete UTF-8 sequence (at most 3 bytes). */
function trimPartialUtf8(sample: Buffer): number {
  for (let back = 1; back <= 3 && back <= sample.length; back++) {
    const byte = sample[sample.length - back];
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? sample.length - back : sample.length;
  }
  return sample.length;
}

/**
 * Label to iconv-lite name, following the WHATWG Encoding Standard where it differs from the
 * label: Latin-1 and ASCII labels mean windows-1252; a UTF-16 label inside an ASCII-compatible
 * document (one without a UTF-16 BOM) means UTF-8.
 */
function normaliseLabel(label: string, source: CharsetSource): string | undefined {
  const lower = label.trim().toLowerCase();
  if (/^(iso-8859-1|iso8859-1|latin-?1|l1|us-ascii|ascii|cp819|ibm819)$/.test(lower)) return 'windows-1252';
  if (/^utf-?16/.test(lower) && source === 'meta') return 'utf-8';
  if (lower === 'utf8') return 'utf-8';
  return iconv.encodingExists(lower) ? lower : undefined;
}

export interface DecodedText {
  text: string;
  /** The charset used, lowercased (e.g. 'utf-8', 'windows-1251'). */
  charset: string;
  source: CharsetSource;
}

/**
 * Decodes a document the way browsers do: a BOM wins, then the Content-Type charset, then a
 * `<meta charset>` / `http-equiv` near the start (HTML only), then statistical detection, then
 * UTF-8. Unknown charset names fall through to the next source.
 */
export function decodeBody(bytes: Buffer, contentType: string | undefined, isHtml: boolean): DecodedText {
  const bom = bomCharset(bytes);
  if (bom) return { text: iconv.decode(bytes.subarray(bom.skip), bom.charset), charset: bom.charset, source: 'bom' };
  const candidates: Array<[string | undefined, CharsetSource]> = [[charsetFromContentType(contentType), 'header']];
  if (isHtml) candidates.push([charsetFromMeta(bytes), 'meta']);
  for (const [label, source] of candidates) {
    const name = label && normaliseLabel(label, source);
    if (name) return { text: iconv.decode(bytes, name), charset: name, source };
  }
  const detected = detectCharset(bytes, isHtml);
  const name = detected && normaliseLabel(detected, 'detected');
  if (name) return { text: iconv.decode(bytes, name), charset: name, source: 'detected' };
  return { text: bytes.toString('utf8'), charset: 'utf-8', source: 'default' };
}
