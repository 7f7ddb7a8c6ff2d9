import { createRequire } from 'node:module';
import chardet from 'chardet';

// Loaded with require(), as jsdom (CommonJS) loads it: under jest on Node 24 a static import from
// this ES module and jsdom's require() of the same ES module meet in one graph walk, which jest
// refuses as a require cycle ("Cannot require() ES Module … in a cycle").
const { normalizeEncoding, TextDecoder: WhatwgTextDecoder } = createRequire(import.meta.url)(
  '@exodus/bytes/encoding.js',
) as typeof import('@exodus/bytes/encoding.js');

/** `<meta charset=…>` and `<meta http-equiv="Content-Type" content="…; charset=…">` alike. */
const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)/gi;
/** Browsers' prescan reads 1 KB; pages with long heads put the meta later, so a little more. */
const META_SCAN_BYTES = 4096;
const DETECT_SAMPLE_BYTES = 64 * 1024;

export type CharsetSource = 'bom' | 'header' | 'meta' | 'detected' | 'default';

/** Charset named by a Content-Type header value, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  return /charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? '')?.[1];
}

/**
 * Charset declared by a `<meta>` in the first bytes of an HTML document, if any: the first one
 * naming an encoding of the standard, as HTML's prescan goes past a meta whose label is unknown.
 */
export function charsetFromMeta(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, META_SCAN_BYTES).toString('latin1').replace(/<!--[\s\S]*?-->/g, '');
  for (const match of head.matchAll(META_CHARSET)) if (normalizeEncoding(match[1])) return match[1];
  return undefined;
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
 * A label to the name of the WHATWG Encoding Standard's encoding it stands for, as browsers map
 * it, or undefined for a label the standard does not list: UTF-7, UTF-32, EBCDIC... (issue 24: a
 * page declaring utf-7 turned `+ADw-script+AD4-` into a live `<script>`). A browser ignores such
 * a label and goes on to the next source; so do we. From a `<meta>` (HTML's prescan), UTF-16 means
 * UTF-8 (the document is ASCII-compatible, or its BOM would have said so) and x-user-defined
 * means windows-1252. ISO-2022-KR, HZ and the other labels of the standard's "replacement"
 * encoding are kept: decodeAs turns them into one U+FFFD, as a browser shows them. A statistical
 * guess of one is no declaration, so it is not taken.
 */
function encodingFor(label: string, source: CharsetSource): string | undefined {
  const name = normalizeEncoding(label);
  if (!name) return undefined;
  if (source === 'meta' && (name === 'utf-16le' || name === 'utf-16be')) return 'utf-8';
  if (source === 'meta' && name === 'x-user-defined') return 'windows-1252';
  if (source === 'detected' && name === 'replacement') return undefined;
  return name;
}

/** The standard's decoder (pure JavaScript: every encoding, whatever ICU Node was built with). */
function decodeAs(bytes: Buffer, encoding: string): string {
  if (encoding === 'replacement') return bytes.length > 0 ? '\ufffd' : '';
  // ignoreBOM: a BOM was looked for (and skipped) before; one inside the text stays.
  return new WhatwgTextDecoder(encoding, { ignoreBOM: true }).decode(bytes);
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
 * UTF-8. Labels the WHATWG Encoding Standard does not list fall through to the next source.
 */
export function decodeBody(bytes: Buffer, contentType: string | undefined, isHtml: boolean): DecodedText {
  const bom = bomCharset(bytes);
  if (bom) return { text: decodeAs(bytes.subarray(bom.skip), bom.charset), charset: bom.charset, source: 'bom' };
  // In order; detection (chardet over 64 KB) only runs when nothing usable was declared.
  const sources: Array<[CharsetSource, () => string | undefined]> = [
    ['header', () => charsetFromContentType(contentType)],
    ...(isHtml ? [['meta', () => charsetFromMeta(bytes)] as [CharsetSource, () => string | undefined]] : []),
    ['detected', () => detectCharset(bytes, isHtml)],
  ];
  for (const [source, labelOf] of sources) {
    const label = labelOf();
    const name = label && encodingFor(label, source);
    if (name) return { text: decodeAs(bytes, name), charset: name, source };
  }
  return { text: decodeAs(bytes, 'utf-8'), charset: 'utf-8', source: 'default' };
}
