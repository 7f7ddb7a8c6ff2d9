/**
 * Minimal reader for the directory of an OLE compound file (MS-CFB): enough to tell a Word
 * 97+ document from an encrypted OOXML package (which Office wraps in an OLE file with an
 * `EncryptedPackage` stream) or another Office format, and to read the start of a stream.
 * word-extractor would tell us only by crashing.
 */

export interface OleStream {
  name: string;
  startSector: number;
  size: number;
}

export interface OleDirectory {
  streams: OleStream[];
  /** The first `length` bytes of a stream kept in regular sectors, or null if unavailable. */
  readHead(stream: OleStream, length: number): Buffer | null;
}

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
const HEADER_DIFAT_ENTRIES = 109;
const DIRECTORY_ENTRY_SIZE = 128;
const STREAM_OBJECT = 2;

export function isOle(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && OLE_SIGNATURE.equals(Buffer.from(bytes.buffer, bytes.byteOffset, 8));
}

/** Returns null when the compound file's structures are not readable (damaged or truncated). */
export function readOleDirectory(bytes: Buffer): OleDirectory | null {
  if (!isOle(bytes) || bytes.length < 512) return null;
  const shift = bytes.readUInt16LE(0x1e);
  if (shift !== 9 && shift !== 12) return null;
  const sectorSize = 1 << shift;
  const sectorCount = Math.floor((bytes.length - 512) / sectorSize) + 1;
  const sectorOffset = (sector: number): number => (sector + 1) * sectorSize;
  const validSector = (sector: number): boolean => sector < sectorCount && sectorOffset(sector) + sectorSize <= bytes.length;

  const fatSectors = readFatSectorList(bytes, sectorSize, validSector, sectorOffset);
  if (!fatSectors) return null;
  const nextSector = (sector: number): number => {
    const perSector = sectorSize / 4;
    const fatSector = fatSectors[Math.floor(sector / perSector)];
    if (fatSector === undefined || !validSector(fatSector)) return END_OF_CHAIN;
    return bytes.readUInt32LE(sectorOffset(fatSector) + (sector % perSector) * 4);
  };

  const streams: OleStream[] = [];
  let sector = bytes.readUInt32LE(0x30);
  // A chain can be at most as long as the file has sectors; anything longer is a loop.
  for (let steps = 0; sector !== END_OF_CHAIN; steps++) {
    if (steps > sectorCount || !validSector(sector)) return null;
    for (let at = sectorOffset(sector); at < sectorOffset(sector) + sectorSize; at += DIRECTORY_ENTRY_SIZE) {
      if (bytes[at + 0x42] !== STREAM_OBJECT) continue;
      const nameLength = Math.min(bytes.readUInt16LE(at + 0x40), 64);
      streams.push({
        name: bytes.toString('utf16le', at, at + Math.max(nameLength - 2, 0)),
        startSector: bytes.readUInt32LE(at + 0x74),
        size: bytes.readUInt32LE(at + 0x78),
      });
    }
    sector = nextSector(sector);
  }

  const miniStreamCutoff = bytes.readUInt32LE(0x38);
  return {
    streams,
    readHead(stream, length) {
      // Small streams live in the mini stream; we never need those.
      if (stream.size < miniStreamCutoff || length > sectorSize || !validSector(stream.startSector)) return null;
      const start = sectorOffset(stream.startSector);
      return bytes.subarray(start, start + Math.min(length, stream.size));
    },
  };
}

function readFatSectorList(
  bytes: Buffer,
  sectorSize: number,
  validSector: (sector: number) => boolean,
  sectorOffset: (sector: number) => number,
): number[] | null {
  const fatSectorCount = bytes.readUInt32LE(0x2c);
  const list: number[] = [];
  for (let i = 0; i < HEADER_DIFAT_ENTRIES && list.length < fatSectorCount; i++) list.push(bytes.readUInt32LE(0x4c + i * 4));
  let difat = bytes.readUInt32LE(0x44);
  const perDifatSector = sectorSize / 4 - 1;
  for (let steps = 0; list.length < fatSectorCount; steps++) {
    if (steps > bytes.length / sectorSize || !validSector(difat)) return null;
    const base = sectorOffset(difat);
    for (let i = 0; i < perDifatSector && list.length < fatSectorCount; i++) list.push(bytes.readUInt32LE(base + i * 4));
    difat = bytes.readUInt32LE(base + perDifatSector * 4);
  }
  return list;
}
