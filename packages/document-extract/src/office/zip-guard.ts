import { inflateRawSync } from 'node:zlib';
import { DocumentError } from '../errors.js';
import { readZipDirectory, type ZipEntry } from './zip-directory.js';

/**
 * Zip-bomb defence for Office packages. JSZip (inside mammoth) trusts the sizes in the
 * archive and inflates whole parts into memory, so we decide before it runs:
 *  - the declared total must stay under MAX_TOTAL_UNCOMPRESSED;
 *  - the XML the parsers read must stay small enough for them: mammoth holds about 40 bytes per
 *    byte of word/document.xml (32 MB of ordinary paragraphs peaked at 1.3 GB and took 31 s; 64 MB
 *    ran the 1.5 GB parse thread out of memory), so the main part is capped at MAX_MAIN_PART and
 *    all XML parts together at MAX_XML_TOTAL, whatever their compression ratio;
 *  - a large part may not claim an implausible compression ratio (Word XML compresses
 *    about 5-20x; only filler such as runs of zeros reaches the deflate maximum of ~1000x);
 *  - every part is inflated once here with a hard output cap equal to its declared size,
 *    so a forged, too-small declared size cannot smuggle a bomb past the first two checks.
 */
/** Everything, media included (pictures hardly compress: a 50 MB download expands to little more). */
export const MAX_TOTAL_UNCOMPRESSED = 128 * 1024 * 1024;
/** word/document.xml, the body; and any one XML part of the other formats (a sheet, content.xml, a chapter). */
export const MAX_MAIN_PART = 24 * 1024 * 1024;
/** Every XML part (body, headers, footers, notes, styles, ...). */
export const MAX_XML_TOTAL = 32 * 1024 * 1024;
const MAX_ENTRIES = 10_000;
const RATIO_CHECK_FROM = 10 * 1024 * 1024;
const MAX_RATIO = 100;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** The parts our readers parse: OOXML and OpenDocument XML, relationships, EPUB's package and chapters. */
const XML_PART = /\.(xml|rels|opf|ncx|xhtml|html?)$/i;

export function assertSafeZip(bytes: Uint8Array): void {
  const entries = readZipDirectory(bytes);
  if (!entries) throw damaged('the ZIP directory of the document cannot be read');
  if (entries.length > MAX_ENTRIES) throw overLimit(`the document package has more than ${MAX_ENTRIES} parts`);

  let total = 0;
  let xml = 0;
  for (const entry of entries) {
    if (entry.encrypted) throw new DocumentError('400-001', 'Password-protected documents are not supported', [`the document is password-protected: part ${entry.name} is encrypted`]);
    if (entry.method !== 0 && entry.method !== 8) throw damaged(`part ${entry.name} uses unsupported compression method ${entry.method}`);
    total += entry.uncompressedSize;
    if (total > MAX_TOTAL_UNCOMPRESSED) throw overLimit(`the document expands to more than ${mb(MAX_TOTAL_UNCOMPRESSED)}`);
    const isXml = XML_PART.test(entry.name);
    if (isXml && entry.uncompressedSize > MAX_MAIN_PART) {
      throw overLimit(`${entry.name === 'word/document.xml' ? 'the body (word/document.xml)' : `part ${entry.name}`} expands to more than ${mb(MAX_MAIN_PART)}`);
    }
    if (isXml) xml += entry.uncompressedSize;
    if (xml > MAX_XML_TOTAL) throw overLimit(`the document's XML parts expand to more than ${mb(MAX_XML_TOTAL)}`);
    if (entry.uncompressedSize > RATIO_CHECK_FROM && entry.uncompressedSize > MAX_RATIO * Math.max(entry.compressedSize, 1)) {
      throw overLimit(`part ${entry.name} has a compression ratio above ${MAX_RATIO}:1 (zip bomb?)`);
    }
  }
  for (const entry of entries) verifyInflatedSize(bytes, entry);
}

function verifyInflatedSize(bytes: Uint8Array, entry: ZipEntry): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER_SIGNATURE) throw damaged(`part ${entry.name} is damaged`);
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) throw damaged(`part ${entry.name} is truncated`);
  if (entry.method === 0) {
    if (entry.compressedSize !== entry.uncompressedSize) throw damaged(`part ${entry.name} has inconsistent sizes`);
    return;
  }
  let inflated: Buffer;
  try {
    // One spare byte lets us tell "exactly the declared size" from "more than declared".
    inflated = inflateRawSync(bytes.subarray(start, end), { maxOutputLength: entry.uncompressedSize + 1 });
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw tooLarge ? overLimit(`part ${entry.name} expands beyond its declared size (zip bomb?)`) : damaged(`part ${entry.name} cannot be decompressed`);
  }
  if (inflated.length !== entry.uncompressedSize) throw damaged(`part ${entry.name} does not match its declared size`);
}

function damaged(detail: string): DocumentError {
  return new DocumentError('400-001', 'The document is damaged', [detail]);
}

function overLimit(detail: string): DocumentError {
  return new DocumentError('400-001', 'The document exceeds a processing limit', [`the document exceeds a processing limit: ${detail}`]);
}

const mb = (bytes: number) => `${bytes / 1024 / 1024} MB`;
