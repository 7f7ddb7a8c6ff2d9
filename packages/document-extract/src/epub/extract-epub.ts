import { DocumentError } from '../errors.js';
import { readXml } from '../markup/xml-stream.js';
import { htmlFileToMarkdown } from '../office/html-to-markdown.js';
import { htmlFilePlainText } from '../office/extract-html.js';
import { resolvePartName } from '../office/relationships.js';
import { missingPart, openZipPackage } from '../office/zip-package.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';

const CONTAINER = 'META-INF/container.xml';
/** Chapters read; a book with more is cut there (a note says so). */
const MAX_CHAPTERS = 5000;
const CHAPTER_TYPES = new Set(['application/xhtml+xml', 'text/html', 'application/x-dtbook+xml']);

/**
 * EPUB 2 and 3 books: the chapters (XHTML content documents) in the order of the package's
 * spine, each one page, rendered as HTML files are (markdown through html-extract's renderer,
 * plain text through htmlToText). Navigation documents, style sheets, fonts and images are not
 * read; DRM-encrypted books (META-INF/encryption.xml naming a chapter) are refused.
 */
export async function extractEpub(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const pkg = await openZipPackage(bytes, 'the .epub');
  const container = await pkg.text(CONTAINER);
  if (container === null) throw missingPart('the .epub', CONTAINER);
  let packagePath: string | null = null;
  readXml(container, {
    open(name, attributes) {
      if (name === 'rootfile' && packagePath === null && attributes['full-path']) packagePath = attributes['full-path'].replace(/^\/+/, '');
    },
  });
  if (packagePath === null) throw new DocumentError('400-001', 'The document is damaged', ['the .epub container names no package document']);
  const packageXml = await pkg.text(packagePath);
  if (packageXml === null) throw missingPart('the .epub', packagePath);
  const chapters = spineChapters(packageXml, packagePath);
  await assertNotEncrypted(await pkg.text('META-INF/encryption.xml'), chapters);

  const notes: string[] = [];
  if (chapters.length > MAX_CHAPTERS) notes.push(`the book has ${chapters.length} chapters; the first ${MAX_CHAPTERS} are read`);
  const pages: string[] = [];
  for (const chapter of chapters.slice(0, MAX_CHAPTERS)) {
    opts.signal?.throwIfAborted();
    const html = await pkg.text(chapter);
    if (html === null) {
      notes.push(`chapter ${chapter} is missing from the package`);
      continue;
    }
    const text = opts.output === 'markdown' ? htmlFileToMarkdown(html, { packaged: true }) : htmlFilePlainText(html);
    if (text.trim() !== '') pages.push(text);
    opts.onProgress?.(pages.length, Math.min(chapters.length, MAX_CHAPTERS));
  }
  return { kind: 'epub', pages: pages.length > 0 ? pages : [''], notes, ocrPages: 0 };
}

/** The part names of the spine's content documents, in reading order (EPUB's linear="no" items, such as pop-up notes, last). */
function spineChapters(xml: string, packagePath: string): string[] {
  const manifest = new Map<string, { href: string; type: string }>();
  const linear: string[] = [];
  const auxiliary: string[] = [];
  readXml(xml, {
    open(name, attributes) {
      if (name === 'item' && attributes.id && attributes.href) manifest.set(attributes.id, { href: attributes.href, type: attributes['media-type'] ?? '' });
      else if (name === 'itemref' && attributes.idref) (attributes.linear === 'no' ? auxiliary : linear).push(attributes.idref);
    },
  });
  const parts: string[] = [];
  for (const id of [...linear, ...auxiliary]) {
    const item = manifest.get(id);
    if (!item || !CHAPTER_TYPES.has(item.type)) continue;
    parts.push(resolvePartName(packagePath, safeDecode(item.href.replace(/#.*$/, ''))));
  }
  return [...new Set(parts)];
}

async function assertNotEncrypted(encryptionXml: string | null, chapters: string[]): Promise<void> {
  if (!encryptionXml) return;
  const encrypted = new Set<string>();
  readXml(encryptionXml, {
    open(name, attributes) {
      if (name === 'CipherReference' && attributes.URI) encrypted.add(safeDecode(attributes.URI).replace(/^\/+/, ''));
    },
  });
  // Font obfuscation (the IDPF and Adobe algorithms) encrypts fonts only: the text is readable.
  if (chapters.some((chapter) => encrypted.has(chapter))) {
    throw new DocumentError('400-001', 'Password-protected documents are not supported', ['the .epub is DRM-protected: its chapters are encrypted']);
  }
}

function safeDecode(href: string): string {
  try {
    return decodeURIComponent(href);
  } catch {
    return href;
  }
}
