import { DocumentError } from './errors.js';
import { classifyOle } from './office/ole-kind.js';
import { isMht } from './office/mht.js';
import { isOle } from './office/ole-directory.js';
import { isZip, readZipDirectory, readSmallEntry } from './office/zip-directory.js';
import { detectBom, looksBinary, SNIFF_LENGTH } from './txt/binary-check.js';
import type { DocumentKind } from './types.js';

/**
 * Detects what a file is from its bytes (API decisions: the declared type is only a hint).
 * Returns null for anything we do not read; throws 400-001 for an encrypted Office package,
 * because "unsupported type" would mislead the user about what is wrong.
 */
export function detectKind(bytes: Buffer, declared?: string): DocumentKind | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (isHeic(bytes)) return 'heic';
  if (isZip(bytes)) return zipKind(bytes);
  if (isOle(bytes)) return oleKind(bytes);
  // Some producers put junk before the header; readers accept it within the first 1 KB.
  if (bytes.subarray(0, 1024).includes('%PDF-')) return 'pdf';

  if (looksBinary(bytes)) return null;
  const head = textHead(bytes);
  const type = declaredTextType(declared);
  if (/^\{\\rtf/.test(head)) return 'rtf';
  if (isHtml(head) || (type === 'html' && head.startsWith('<'))) return 'html';
  if (isWord2003Xml(head)) {
    throw new DocumentError('400-001', 'Unsupported file type', ['Word 2003 XML documents are not supported; save the file as .docx']);
  }
  if (!isClearlyText(bytes) && type === null) return null;
  // CSV and markdown are text whatever they hold: only the sender's type tells them from a .txt.
  return type === 'csv' || type === 'md' ? type : 'txt';
}

/** The bytes sniffHead looks at: enough for every signature detectKind reads and its binary check. */
export const SNIFF_HEAD_BYTES = SNIFF_LENGTH;

/**
 * What the first bytes of a file tell before the rest has arrived (an upload being stored): null
 * when it may be a kind we read (detectKind decides on the whole file), else why it is not one.
 * Only binary data with no signature of ours is refused here; text, and containers whose contents
 * are known only from the whole file (ZIP, OLE), are left to the parser.
 */
export function unsupportedHead(head: Buffer): string | null {
  if (head.length === 0) return null;
  if (startsWith(head, [0xff, 0xd8, 0xff]) || startsWith(head, [0x89, 0x50, 0x4e, 0x47])) return null;
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]) || isHeic(head)) return null;
  if (isZip(head) || isOle(head) || head.subarray(0, 1024).includes('%PDF-')) return null;
  return looksBinary(head) ? describeUnsupported(head) : null;
}

/** A short human description of bytes detectKind returned null for, for the error's details. */
export function describeUnsupported(bytes: Buffer): string {
  if (bytes.length === 0) return 'the file is empty';
  if (isZip(bytes)) return zipDescription(bytes);
  if (isOle(bytes)) return 'an OLE compound file that is not a Word or Excel document (e.g. an Outlook message)';
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return 'a GIF image';
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'a WebP image';
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return `an ISO media file (brand ${bytes.subarray(8, 12).toString('latin1')})`;
  if (looksBinary(bytes)) return 'binary data of an unknown format';
  return 'text that is not valid UTF-8 and was not declared as txt';
}

/** OpenDocument and EPUB packages name their media type in a first, stored `mimetype` part. */
const PACKAGE_MIME_TYPES: Record<string, DocumentKind> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/epub+zip': 'epub',
};

function zipKind(bytes: Buffer): DocumentKind | null {
  const entries = readZipDirectory(bytes);
  if (entries) {
    const names = new Set(entries.map((e) => e.name));
    if (names.has('word/document.xml')) return 'docx';
    if (names.has('xl/workbook.xml')) return 'xlsx';
    if (names.has('ppt/presentation.xml')) return 'pptx';
    if (names.has('xl/workbook.bin')) {
      throw new DocumentError('400-001', 'Unsupported file type', ['Excel binary workbooks (.xlsb) are not supported; save the file as .xlsx']);
    }
    const mimetype = entries.find((e) => e.name === 'mimetype');
    const declaredMime = mimetype ? readSmallEntry(bytes, mimetype, 128)?.toString('latin1').trim() : undefined;
    if (declaredMime && PACKAGE_MIME_TYPES[declaredMime]) return PACKAGE_MIME_TYPES[declaredMime];
    // An EPUB zipped without its mimetype part still has its container.
    return names.has('META-INF/container.xml') && !declaredMime ? 'epub' : null;
  }
  // No readable directory (truncated?): if the first part is an OOXML one, let the .docx reader
  // report the damage rather than calling the file an unsupported type.
  const firstName = bytes.subarray(30, 30 + Math.min(bytes.length >= 28 ? bytes.readUInt16LE(26) : 0, 64)).toString('latin1');
  return firstName === '[Content_Types].xml' || firstName.startsWith('word/') || firstName.startsWith('_rels/') ? 'docx' : null;
}

/** What a ZIP we do not read is, as far as its parts tell. */
function zipDescription(bytes: Buffer): string {
  const entries = readZipDirectory(bytes);
  const mimetype = entries?.find((e) => e.name === 'mimetype');
  const declaredMime = mimetype ? readSmallEntry(bytes, mimetype, 128)?.toString('latin1').trim() : undefined;
  if (declaredMime) return `a ZIP package of type ${declaredMime.slice(0, 80)}, not a format we read`;
  return 'a ZIP archive that is not a document we read (Word, Excel, PowerPoint, OpenDocument or EPUB)';
}

function oleKind(bytes: Buffer): DocumentKind | null {
  switch (classifyOle(bytes)) {
    case 'encrypted-ooxml':
      throw new DocumentError('400-001', 'Password-protected documents are not supported', [
        'the document is password-protected: an encrypted Office package (OLE container holding an EncryptedPackage stream)',
      ]);
    case 'excel':
      return 'xls';
    case 'powerpoint':
      throw new DocumentError('400-001', 'Unsupported file type', ['PowerPoint 97-2003 (.ppt) files are not supported; save the file as .pptx']);
    case 'other':
      return null;
    default:
      // Damaged, encrypted or old Word files are still Word files: the .doc reader explains what is wrong.
      return 'doc';
  }
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

// HEIF brands of HEVC-coded images; mif1/msf1 are generic and also used by AVIF, which we do not read.
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx']);
const GENERIC_HEIF_BRANDS = new Set(['mif1', 'msf1']);

function isHeic(bytes: Buffer): boolean {
  if (bytes.length < 16 || bytes.subarray(4, 8).toString('latin1') !== 'ftyp') return false;
  const boxSize = Math.min(bytes.readUInt32BE(0), bytes.length, 256);
  const major = bytes.subarray(8, 12).toString('latin1');
  const compatible: string[] = [];
  for (let at = 16; at + 4 <= boxSize; at += 4) compatible.push(bytes.subarray(at, at + 4).toString('latin1'));
  if (HEIC_BRANDS.has(major)) return true;
  if (!GENERIC_HEIF_BRANDS.has(major)) return false;
  if (compatible.some((b) => b === 'avif' || b === 'avis')) return compatible.some((b) => HEIC_BRANDS.has(b));
  return true;
}

function textHead(bytes: Buffer): string {
  const bom = detectBom(bytes);
  if (bom?.encoding === 'utf-16le') return bytes.subarray(2, 2 + 2048).toString('utf16le').trimStart();
  if (bom?.encoding === 'utf-16be') return Buffer.from(bytes.subarray(2, 2 + 2048)).swap16().toString('utf16le').trimStart();
  return bytes.subarray(bom ? bom.length : 0, 2048).toString('latin1').trimStart();
}

function isHtml(head: string): boolean {
  // Word's "Web page" and "Single file web page" (.mht) saves are often named .doc.
  if (isMht(head)) return true;
  return /^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!doctype html|<html[\s>])/i.test(head);
}

function isWord2003Xml(head: string): boolean {
  return head.startsWith('<?xml') && /<w:wordDocument\b|progid="Word\.Document"/.test(head);
}

/** UTF-8 (or a BOM) makes text unambiguous; otherwise it must at least be mostly ASCII. */
function isClearlyText(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  if (detectBom(bytes)) return true;
  const head = bytes.subarray(0, SNIFF_LENGTH);
  let ascii = 0;
  for (const byte of head) if (byte < 0x80) ascii++;
  if (ascii === head.length) return true;
  if (isValidUtf8Prefix(head)) return true;
  return ascii / head.length >= 0.7;
}

function isValidUtf8Prefix(head: Buffer): boolean {
  // The sniffed window may cut a multi-byte character: drop up to 3 trailing bytes of it.
  for (let cut = 0; cut <= 3 && cut < head.length; cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - cut));
      return true;
    } catch {
      // try a shorter prefix
    }
  }
  return false;
}

/** The text format a declared type (an extension or a media type) names, if any. */
function declaredTextType(declared: string | undefined): 'txt' | 'csv' | 'md' | 'html' | null {
  if (!declared) return null;
  const normalised = declared.trim().toLowerCase().replace(/^\./, '').replace(/;.*$/, '');
  if (normalised === 'txt' || normalised === 'text' || normalised === 'text/plain') return 'txt';
  if (normalised === 'csv' || normalised === 'tsv' || normalised === 'text/csv' || normalised === 'text/tab-separated-values') return 'csv';
  if (normalised === 'md' || normalised === 'markdown' || normalised === 'text/markdown') return 'md';
  if (normalised === 'html' || normalised === 'htm' || normalised === 'text/html') return 'html';
  return null;
}
