import { detectBom } from './binary-check.js';
import { decodeWindows1252 } from './charset.js';

export interface DecodedText {
  text: string;
  /** WHATWG encoding label actually used. */
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
  note: string;
}

/**
 * SPEC: "UTF-8 by default with fallback to Latin-1". A BOM wins (UTF-16 files would otherwise
 * turn into NUL-laced Latin-1). For the fallback we use windows-1252, not ISO-8859-1: they agree
 * on every printable Latin-1 character, but in 0x80-0x9F ISO-8859-1 has only C1 control codes
 * (which we would then delete) while real-world "Latin-1" files use those bytes for Windows'
 * curly quotes, dashes and the euro sign. WHATWG's own "latin1" label means windows-1252 too
 * (see charset.ts for why we do not use TextDecoder for it).
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const bom = detectBom(bytes);
  if (bom) {
    // TextDecoder strips the BOM itself.
    return { text: new TextDecoder(bom.encoding).decode(bytes), encoding: bom.encoding, note: `decoded as ${bom.encoding.toUpperCase()} (byte order mark)` };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8', note: 'decoded as UTF-8' };
  } catch {
    return {
      text: decodeWindows1252(bytes),
      encoding: 'windows-1252',
      note: 'decoded as windows-1252 (Latin-1 fallback: the file is not valid UTF-8)',
    };
  }
}
