import JSZip from 'jszip';
import { DocumentError } from '../errors.js';
import { isOle } from './ole-directory.js';
import { assertSafeZip } from './zip-guard.js';

/**
 * An Office, OpenDocument or EPUB package (a ZIP), opened after the zip-bomb checks: every part
 * inflates to its declared size and the sizes stay within zip-guard's limits, so reading a part
 * whole afterwards is bounded. `what` names the format in errors ("the .xlsx").
 */
export interface ZipPackage {
  zip: JSZip;
  /** A part's text, or null when the package has no such part (names are matched exactly). */
  text(name: string): Promise<string | null>;
  has(name: string): boolean;
}

export async function openZipPackage(bytes: Buffer, what: string): Promise<ZipPackage> {
  if (isOle(bytes)) {
    throw new DocumentError('400-001', 'Password-protected documents are not supported', [`${what} is password-protected (encrypted: an OLE container, not a ZIP package)`]);
  }
  assertSafeZip(bytes);
  const zip = await JSZip.loadAsync(bytes).catch((error: unknown) => {
    throw new DocumentError('400-001', 'The document is damaged', [`the ZIP package cannot be read: ${error instanceof Error ? error.message : String(error)}`]);
  });
  return {
    zip,
    has: (name) => zip.file(name) !== null,
    text: async (name) => {
      const file = zip.file(name);
      return file ? file.async('string') : null;
    },
  };
}

/** A missing part the format cannot do without: the package is damaged (or not what it claims). */
export function missingPart(what: string, name: string): DocumentError {
  return new DocumentError('400-001', 'The document is damaged', [`${what} has no ${name}`]);
}
