import { readOleDirectory } from './ole-directory.js';

/** What an OLE compound file holds, as far as choosing (or refusing) a Word reader goes. */
export type OleContent =
  | 'word97' // Word 97-2003 binary: word-extractor reads it
  | 'word6' // Word 6/95 (older FIB), which word-extractor rejects
  | 'encrypted-word' // Word 97-2003 binary with the FIB's fEncrypted flag
  | 'encrypted-ooxml' // a password-protected docx/xlsx/pptx: the package sits encrypted in an OLE file
  | 'excel' // Excel 5.0-2003 binary workbook (BIFF5/BIFF8): a Workbook or Book stream
  | 'powerpoint' // PowerPoint 97-2003 (.ppt), which we do not read
  | 'other' // Outlook message, ...
  | 'unreadable'; // the compound file's own structures are damaged

// FIB (MS-DOC 2.5.2): wIdent at 0, flags at 0x0A with fEncrypted = bit 8.
const WORD97_IDENT = 0xa5ec;
const WORD6_IDENT = 0xa5dc;
const FIB_ENCRYPTED = 0x0100;

export function classifyOle(bytes: Buffer): OleContent {
  const directory = readOleDirectory(bytes);
  if (!directory) return 'unreadable';
  if (directory.streams.some((s) => s.name === 'EncryptedPackage')) return 'encrypted-ooxml';
  const word = directory.streams.find((s) => s.name === 'WordDocument');
  if (!word) {
    if (directory.streams.some((s) => s.name === 'Workbook' || s.name === 'Book')) return 'excel';
    return directory.streams.some((s) => s.name === 'PowerPoint Document') ? 'powerpoint' : 'other';
  }
  const fib = directory.readHead(word, 12);
  // Without the FIB head we cannot say more; word-extractor will decide.
  if (!fib || fib.length < 12) return 'word97';
  const ident = fib.readUInt16LE(0);
  if (ident === WORD6_IDENT) return 'word6';
  if (ident !== WORD97_IDENT) return 'unreadable';
  return (fib.readUInt16LE(0x0a) & FIB_ENCRYPTED) !== 0 ? 'encrypted-word' : 'word97';
}
