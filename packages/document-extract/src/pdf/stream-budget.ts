import { constants, inflateSync } from 'node:zlib';
import { DocumentError } from '../errors.js';

/**
 * PDF-bomb defence. pdf.js inflates a stream whole, into memory, whatever it expands to, and
 * offers no limit (its `maxImageSize` covers images only): a 1.2 MB file holding 1.2 GB of
 * spaces in one content stream took 4 GB and 27 s, and 50 MB of text operators packed into
 * 150 KB ran 42 s before overflowing the stack. So before pdf.js sees the file, every stream
 * that is not an image is decoded here once, each stage capped, and its text-showing operators
 * counted; a file over a limit is refused with 400-001.
 *
 * Limits, against the corpus (13 PDFs up to 352 pages): the largest decoded non-image stream is
 * 0.9 MB, the largest document total 2.7 MB, the most text-showing operators in one stream 232
 * and in one document 28,000. At the limits pdf.js needs about 1.3 s for a 32 MB stream and
 * 2.2 s for 100,000 text operators on one page. A page is one content stream or a few.
 *
 * Streams of an encrypted file (even one with an owner password only) cannot be decoded without
 * deriving its key; they are not measured, and only the job's time budget bounds them.
 */
export const PDF_LIMITS = {
  /** Decoded bytes of one stream (a page's content, a font, a form). */
  streamBytes: 32 * 1024 * 1024,
  /** Decoded bytes of all non-image streams together. */
  documentBytes: 256 * 1024 * 1024,
  /** Text-showing operators (Tj, TJ, ', ") in one content stream. */
  streamTextOperators: 100_000,
  /** Text-showing operators in the whole document. */
  documentTextOperators: 2_000_000,
};
export type PdfLimits = typeof PDF_LIMITS;

export interface StreamCensus {
  streams: number;
  /** Decoded bytes of non-image streams, in all and the largest. */
  decodedBytes: number;
  largestStream: number;
  textOperators: number;
  mostTextOperators: number;
}

/** Filters whose output is an image, decoded by pdf.js only up to the image's declared size. */
const IMAGE_FILTERS = new Set(['DCTDecode', 'DCT', 'JPXDecode', 'JBIG2Decode', 'CCITTFaxDecode', 'CCF']);
const FILTER_NAMES: Record<string, string> = { Fl: 'FlateDecode', LZW: 'LZWDecode', RL: 'RunLengthDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode' };
/** A dictionary is searched for backwards from its stream keyword at most this far. */
const MAX_DICTIONARY = 64 * 1024;

function overLimit(detail: string): DocumentError {
  return new DocumentError('400-001', 'The document exceeds a processing limit', [`the PDF exceeds a processing limit: ${detail} (PDF bomb?)`]);
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Decodes every non-image stream of the file with capped output and counts what pdf.js would
 * have to chew through; throws 400-001 at the first limit passed. A content stream is counted
 * as often as it is referenced (pages sharing one stream each draw it). Streams that cannot be
 * decoded are counted as far as they decode (pdf.js is as lenient).
 */
export function checkStreamBudget(bytes: Uint8Array, limits: PdfLimits = PDF_LIMITS): StreamCensus {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const census: StreamCensus = { streams: 0, decodedBytes: 0, largestStream: 0, textOperators: 0, mostTextOperators: 0 };
  const content: Array<{ object: string | null; bytes: number; shows: number }> = [];
  const references = new Map<string, number>();
  const countReferences = (text: string) => {
    for (const m of text.matchAll(/(\d+)\s+(\d+)\s+R(?![A-Za-z])/g)) references.set(`${m[1]} ${m[2]}`, (references.get(`${m[1]} ${m[2]}`) ?? 0) + 1);
  };
  let uncounted = 0;
  for (let at = raw.indexOf('stream', 0, 'latin1'); at >= 0; ) {
    const stream = locateStream(raw, at);
    if (!stream) {
      at = raw.indexOf('stream', at + 6, 'latin1');
      continue;
    }
    census.streams++;
    const { dictionary, start, end, open } = stream;
    countReferences(raw.toString('latin1', uncounted, open));
    uncounted = Math.max(end, start);
    at = raw.indexOf('stream', uncounted + 1, 'latin1');
    if (/\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const filters = filtersOf(dictionary);
    if (filters.some((f) => IMAGE_FILTERS.has(f))) continue;

    const room = Math.min(limits.streamBytes, limits.documentBytes - census.decodedBytes);
    const decoded = decodeChain(raw.subarray(start, end), filters, room);
    if (decoded === 'over') throw overLimit(room < limits.streamBytes ? documentBytes(limits) : `a stream decodes to more than ${mb(limits.streamBytes)}`);
    census.decodedBytes += decoded.length;
    census.largestStream = Math.max(census.largestStream, decoded.length);
    // Object streams hold the dictionaries (pages among them) of compressed files.
    if (/\/Type\s*\/ObjStm\b/.test(dictionary)) countReferences(decoded.toString('latin1'));
    if (!isContent(dictionary)) continue;
    const shows = countTextShows(decoded);
    if (shows > limits.streamTextOperators) throw overLimit(`a page draws more than ${limits.streamTextOperators.toLocaleString('en-US')} pieces of text`);
    const object = /(\d+)\s+(\d+)\s+obj\s*$/.exec(raw.toString('latin1', Math.max(0, open - 40), open));
    content.push({ object: object ? `${object[1]} ${object[2]}` : null, bytes: decoded.length, shows });
  }
  countReferences(raw.toString('latin1', uncounted));

  for (const stream of content) {
    const uses = Math.max(1, (stream.object && references.get(stream.object)) || 1);
    census.decodedBytes += stream.bytes * (uses - 1);
    census.textOperators += stream.shows * uses;
    census.mostTextOperators = Math.max(census.mostTextOperators, stream.shows);
  }
  if (census.decodedBytes > limits.documentBytes) throw overLimit(documentBytes(limits));
  if (census.textOperators > limits.documentTextOperators) throw overLimit(`its pages draw more than ${limits.documentTextOperators.toLocaleString('en-US')} pieces of text`);
  return census;
}

const documentBytes = (limits: PdfLimits) => `its streams decode to more than ${mb(limits.documentBytes)}`;

/** The stream whose keyword is at `at`: its dictionary (as text) and the extent of its data. */
function locateStream(raw: Buffer, at: number): { dictionary: string; open: number; start: number; end: number } | null {
  // `endstream`, and `stream` inside a name or word, are not stream starts.
  if (at > 0 && /[A-Za-z]/.test(String.fromCharCode(raw[at - 1]))) return null;
  let close = at - 1;
  while (close > 0 && isWhite(raw[close])) close--;
  if (close < 1 || raw[close] !== 0x3e || raw[close - 1] !== 0x3e) return null;
  // Walk back to the matching `<<`, over nested dictionaries (DecodeParms).
  let depth = 0;
  let open = -1;
  for (let i = close; i > 0 && i > close - MAX_DICTIONARY; i--) {
    if (raw[i] === 0x3e && raw[i - 1] === 0x3e) {
      depth++;
      i--;
    } else if (raw[i] === 0x3c && raw[i - 1] === 0x3c) {
      depth--;
      i--;
      if (depth === 0) {
        open = i;
        break;
      }
    }
  }
  if (open < 0) return null;
  const dictionary = raw.toString('latin1', open, close + 1);
  let start = at + 6;
  if (raw[start] === 0x0d) start++;
  if (raw[start] === 0x0a) start++;
  const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary);
  const declaredEnd = length ? start + Number(length[1]) : -1;
  // A direct /Length is believed when `endstream` follows it; otherwise the keyword ends the data.
  if (declaredEnd >= start && declaredEnd <= raw.length && /^\s*endstream/.test(raw.toString('latin1', declaredEnd, declaredEnd + 20))) {
    return { dictionary, open, start, end: declaredEnd };
  }
  const keyword = raw.indexOf('endstream', start, 'latin1');
  return { dictionary, open, start, end: keyword < 0 ? raw.length : keyword };
}

function isWhite(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function filtersOf(dictionary: string): string[] {
  const filter = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dictionary)?.[1] ?? '';
  return [...filter.matchAll(/\/([A-Za-z0-9]+)/g)].map((m) => FILTER_NAMES[m[1]] ?? m[1]);
}

/** Page content and forms carry no /Type (pages' content) or are /Subtype /Form; fonts, object streams and the like are not drawn. */
function isContent(dictionary: string): boolean {
  if (/\/Subtype\s*\/Form\b/.test(dictionary)) return true;
  return !/\/(Type|Subtype|Length1|Length2|Length3)\b/.test(dictionary);
}

/** Applies the filters in order, each output capped at `cap` bytes; stops at a filter it does not know (pdf.js would fail or skip there). */
function decodeChain(data: Buffer, filters: string[], cap: number): Buffer | 'over' {
  let current = data;
  for (const filter of filters) {
    let next: Buffer | 'over' | null;
    switch (filter) {
      case 'FlateDecode':
        next = inflateCapped(current, cap);
        break;
      case 'LZWDecode':
        next = lzwDecode(current, cap);
        break;
      case 'RunLengthDecode':
        next = runLengthDecode(current, cap);
        break;
      case 'ASCIIHexDecode':
        next = Buffer.from(current.toString('latin1').replace(/>[\s\S]*$/, '').replace(/[^0-9A-Fa-f]/g, '').replace(/^((?:..)*).$/, '$10'), 'hex');
        break;
      case 'ASCII85Decode':
        next = ascii85Decode(current);
        break;
      default:
        next = null;
    }
    if (next === null) break;
    if (next === 'over' || next.length > cap) return 'over';
    current = next;
  }
  return current;
}

function inflateCapped(data: Buffer, cap: number): Buffer | 'over' {
  // Z_SYNC_FLUSH: a stream cut short (or missing its checksum) gives what it holds, as in pdf.js.
  const options = { maxOutputLength: cap + 1, finishFlush: constants.Z_SYNC_FLUSH };
  try {
    return inflateSync(data, options);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'over';
    // Damaged data: pdf.js reads what inflates before the damage, which is bounded by the cap too.
    return Buffer.alloc(0);
  }
}

/** LZW as PDF uses it (early change 1), as pdf.js decodes it: each code can emit up to ~4 KB, a bomb vector like deflate. */
function lzwDecode(data: Buffer, cap: number): Buffer | 'over' {
  const previousOf = new Int32Array(4097);
  const lastByte = new Uint8Array(4097);
  const lengthOf = new Int32Array(4097);
  for (let i = 0; i < 256; i++) [previousOf[i], lastByte[i], lengthOf[i]] = [-1, i, 1];
  let output = Buffer.allocUnsafe(Math.min(cap + 1, Math.max(4096, data.length * 4)));
  let length = 0;
  const sequence = new Uint8Array(4097);
  let sequenceLength = 0;
  let nextCode = 258;
  let width = 9;
  let previous = -1;
  let buffer = 0;
  let bits = 0;
  for (const byte of data) {
    buffer = ((buffer & 0xffffff) << 8) | byte;
    bits += 8;
    while (bits >= width) {
      const code = (buffer >>> (bits - width)) & ((1 << width) - 1);
      bits -= width;
      if (code === 256) {
        [nextCode, width, previous, sequenceLength] = [258, 9, -1, 0];
        continue;
      }
      if (code === 257) return output.subarray(0, length);
      if (code < 256) {
        sequence[0] = code;
        sequenceLength = 1;
      } else if (code < nextCode) {
        sequenceLength = lengthOf[code];
        for (let k = sequenceLength - 1, q = code; k >= 0; k--, q = previousOf[q]) sequence[k] = lastByte[q];
      } else if (code === nextCode && previous >= 0) {
        // The code being defined: the previous sequence plus its own first byte.
        sequence[sequenceLength++] = sequence[0];
      } else {
        return output.subarray(0, length);
      }
      if (length + sequenceLength > cap) return 'over';
      if (length + sequenceLength > output.length) {
        const grown = Buffer.allocUnsafe(Math.min(cap + 1, output.length * 2 + sequenceLength));
        output.copy(grown, 0, 0, length);
        output = grown;
      }
      output.set(sequence.subarray(0, sequenceLength), length);
      length += sequenceLength;
      if (previous >= 0 && nextCode < 4096) {
        previousOf[nextCode] = previous;
        lengthOf[nextCode] = lengthOf[previous] + 1;
        lastByte[nextCode] = sequence[0];
        nextCode++;
        width = nextCode + 1 >= 2048 ? 12 : nextCode + 1 >= 1024 ? 11 : nextCode + 1 >= 512 ? 10 : 9;
      }
      previous = code;
    }
  }
  return output.subarray(0, length);
}

function runLengthDecode(data: Buffer, cap: number): Buffer | 'over' {
  let total = 0;
  for (let i = 0; i < data.length; ) {
    const n = data[i];
    if (n === 128) break;
    if (n < 128) {
      total += n + 1;
      i += n + 2;
    } else {
      total += 257 - n;
      i += 2;
    }
    if (total > cap) return 'over';
  }
  const out = Buffer.alloc(total);
  let length = 0;
  for (let i = 0; i < data.length && length < total; ) {
    const n = data[i];
    if (n === 128) break;
    if (n < 128) {
      data.copy(out, length, i + 1, i + 2 + n);
      length += n + 1;
      i += n + 2;
    } else {
      out.fill(data[i + 1] ?? 0, length, length + 257 - n);
      length += 257 - n;
      i += 2;
    }
  }
  return out.subarray(0, length);
}

function ascii85Decode(data: Buffer): Buffer {
  const text = data.toString('latin1').replace(/~>[\s\S]*$/, '').replace(/\s+/g, '').replace(/^<~/, '');
  const out: number[] = [];
  let group: number[] = [];
  const flush = (count: number) => {
    while (group.length < 5) group.push(84);
    let value = 0;
    for (const digit of group) value = value * 85 + digit;
    const bytes = [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
    out.push(...bytes.slice(0, count));
    group = [];
  };
  for (const char of text) {
    if (char === 'z' && group.length === 0) {
      out.push(0, 0, 0, 0);
      continue;
    }
    const digit = char.charCodeAt(0) - 33;
    if (digit < 0 || digit > 84) continue;
    group.push(digit);
    if (group.length === 5) flush(4);
  }
  if (group.length > 1) flush(group.length - 1);
  return Buffer.from(out);
}

/**
 * Text-showing operators (Tj TJ ' ") in content: each becomes a text item in pdf.js, and their
 * number is what makes a page slow (and, in the millions, overflows pdf.js's stack).
 */
function countTextShows(content: Buffer): number {
  let count = 0;
  for (let at = content.indexOf(0x54); at >= 0; at = content.indexOf(0x54, at + 1)) {
    // `T` followed by `j` or `J`, as a token of its own.
    const after = content[at + 1];
    if ((after === 0x6a || after === 0x4a) && (at + 2 >= content.length || isDelimiter(content[at + 2])) && (at === 0 || isDelimiter(content[at - 1]))) count++;
  }
  for (const quote of [0x27, 0x22]) {
    for (let at = content.indexOf(quote); at >= 0; at = content.indexOf(quote, at + 1)) {
      if ((at === 0 || isWhite(content[at - 1]) || content[at - 1] === 0x29) && (at + 1 >= content.length || isDelimiter(content[at + 1]))) count++;
    }
  }
  return count;
}

function isDelimiter(byte: number): boolean {
  return isWhite(byte) || byte === 0x29 || byte === 0x5d || byte === 0x3e || byte === 0x2f || byte === 0x28 || byte === 0x5b || byte === 0x3c;
}
