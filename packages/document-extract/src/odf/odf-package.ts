import { missingPart, openZipPackage, type ZipPackage } from '../office/zip-package.js';
import { OdfStyles } from './odf-html.js';

/** An OpenDocument package opened with the zip guards, with its content.xml (which every kind needs). */
export async function openOdfPackage(bytes: Buffer, what: string): Promise<{ pkg: ZipPackage; content: string }> {
  const pkg = await openZipPackage(bytes, what);
  const content = await pkg.text('content.xml');
  if (content === null) throw missingPart(what, 'content.xml');
  return { pkg, content };
}

/** The list and text styles of styles.xml, then of content.xml's automatic styles. */
export async function readOdfStyles(pkg: ZipPackage, content: string): Promise<OdfStyles> {
  const styles = new OdfStyles();
  styles.read((await pkg.text('styles.xml')) ?? '');
  styles.read(content);
  return styles;
}
