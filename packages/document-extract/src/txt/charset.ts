/**
 * Character set decoding with one correction: Node 20.20's TextDecoder('windows-1252') (and
 * 'latin1', which WHATWG maps to it) decodes 0x80-0x9F as C1 control codes, i.e. as
 * ISO-8859-1, not as Windows' € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ
 * (measured on this machine; research notes 4.6 expected otherwise). We map that range ourselves.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

export function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]));
}

/** A decoder for a charset label (HTML meta, MIME, RTF code page); null if unknown. */
export function decoderFor(label: string): ((bytes: Uint8Array) => string) | null {
  let encoding: string;
  try {
    encoding = new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
  if (encoding === 'windows-1252') return decodeWindows1252;
  const decoder = new TextDecoder(encoding);
  return (bytes) => decoder.decode(bytes);
}
