import { inflateRawSync } from 'node:zlib';

/**
 * Reads a ZIP central directory without inflating anything, so that we can decide what a
 * package is (detection) and whether it is safe to open (zip-bomb checks) before any
 * library allocates memory for its contents.
 */

export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflate; anything else JSZip cannot read. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const EOCD_MIN_LENGTH = 22;
const MAX_COMMENT_LENGTH = 0xffff;
const SIZE_IN_ZIP64_EXTRA = 0xffffffff;

export function isZip(bytes: Uint8Array): boolean {
  // Local file header (PK\3\4) or an empty archive (PK\5\6).
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6);
}

/** Returns the entries of the central directory, or null when the archive's directory cannot be read. */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) return null;

  let entryCount = view.getUint16(eocd + 10, true);
  let directoryOffset = view.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if (locator >= 0 && view.getUint32(locator, true) === ZIP64_LOCATOR_SIGNATURE) {
    const zip64Eocd = safeNumber(view.getBigUint64(locator + 8, true));
    if (zip64Eocd === null || zip64Eocd + 56 > view.byteLength || view.getUint32(zip64Eocd, true) !== ZIP64_EOCD_SIGNATURE) return null;
    const count = safeNumber(view.getBigUint64(zip64Eocd + 32, true));
    const offset = safeNumber(view.getBigUint64(zip64Eocd + 48, true));
    if (count === null || offset === null) return null;
    entryCount = count;
    directoryOffset = offset;
  }

  const entries: ZipEntry[] = [];
  let position = directoryOffset;
  for (let i = 0; i < entryCount; i++) {
    if (position + 46 > view.byteLength || view.getUint32(position, true) !== CENTRAL_HEADER_SIGNATURE) return null;
    const flags = view.getUint16(position + 8, true);
    const nameLength = view.getUint16(position + 28, true);
    const extraLength = view.getUint16(position + 30, true);
    const commentLength = view.getUint16(position + 32, true);
    const end = position + 46 + nameLength + extraLength + commentLength;
    if (end > view.byteLength) return null;
    const entry: ZipEntry = {
      name: Buffer.from(bytes.buffer, bytes.byteOffset + position + 46, nameLength).toString((flags & 0x800) !== 0 ? 'utf8' : 'latin1'),
      method: view.getUint16(position + 10, true),
      encrypted: (flags & 0x1) !== 0,
      compressedSize: view.getUint32(position + 20, true),
      uncompressedSize: view.getUint32(position + 24, true),
      localHeaderOffset: view.getUint32(position + 42, true),
    };
    if (!applyZip64Extra(view, position + 46 + nameLength, extraLength, entry)) return null;
    entries.push(entry);
    position = end;
  }
  return entries;
}

function findEndOfCentralDirectory(view: DataView): number {
  const lowest = Math.max(0, view.byteLength - EOCD_MIN_LENGTH - MAX_COMMENT_LENGTH);
  for (let at = view.byteLength - EOCD_MIN_LENGTH; at >= lowest; at--) {
    if (view.getUint32(at, true) === EOCD_SIGNATURE) return at;
  }
  return -1;
}

/** Sizes and offsets that do not fit 32 bits live in the ZIP64 extra field (id 1), in this fixed order. */
function applyZip64Extra(view: DataView, start: number, length: number, entry: ZipEntry): boolean {
  const needs = [entry.uncompressedSize, entry.compressedSize, entry.localHeaderOffset].some((v) => v === SIZE_IN_ZIP64_EXTRA);
  if (!needs) return true;
  let position = start;
  while (position + 4 <= start + length) {
    const id = view.getUint16(position, true);
    const size = view.getUint16(position + 2, true);
    if (id === 1) {
      let field = position + 4;
      const next = (): number | null => {
        if (field + 8 > position + 4 + size) return null;
        const value = safeNumber(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === SIZE_IN_ZIP64_EXTRA) entry.uncompressedSize = next() ?? -1;
      if (entry.compressedSize === SIZE_IN_ZIP64_EXTRA) entry.compressedSize = next() ?? -1;
      if (entry.localHeaderOffset === SIZE_IN_ZIP64_EXTRA) entry.localHeaderOffset = next() ?? -1;
      return entry.uncompressedSize >= 0 && entry.compressedSize >= 0 && entry.localHeaderOffset >= 0;
    }
    position += 4 + size;
  }
  return false;
}

function safeNumber(value: bigint): number | null {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : null;
}

/**
 * The content of a small entry (an OpenDocument or EPUB `mimetype` part), read from its local
 * header without the rest of the archive; null when it is larger than `maxBytes`, encrypted,
 * or unreadable.
 */
export function readSmallEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Buffer | null {
  if (entry.encrypted || entry.uncompressedSize > maxBytes || entry.compressedSize > maxBytes * 4 + 64) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || view.getUint32(header, true) !== 0x04034b50) return null;
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const data = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, Math.min(entry.compressedSize, bytes.length - start)));
  if (entry.method === 0) return data;
  if (entry.method !== 8) return null;
  try {
    return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
}
