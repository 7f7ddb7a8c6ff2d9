import { XMLSerializer } from '@xmldom/xmldom';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { parse } from 'node-html-parser';
import { DocumentError } from '../errors.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { readHeadersFooters } from './docx-headers-footers.js';
import { finishMarkdownNotes, prepareMammothHtml, splitPages } from './docx-html.js';
import { type Equation, extractEquations, restoreEquations } from './docx-math.js';
import { finishListLabels, headingStyleRules, labelNumberedParagraphs, readStyles } from './docx-numbering.js';
import { parseXml, readXmlPart } from './docx-xml.js';
import { fragmentToMarkdown } from './html-to-markdown.js';
import { htmlToText } from './html-to-text.js';
import { openZipPackage } from './zip-package.js';

const MAIN_PART = 'word/document.xml';
const STYLES_PART = 'word/styles.xml';
const NUMBERING_PART = 'word/numbering.xml';
// Parts mammoth reads whose w:cr it would drop.
const MAMMOTH_STORY_PARTS = [MAIN_PART, 'word/footnotes.xml', 'word/endnotes.xml'];
const CARRIAGE_RETURN = /<([\w.-]+:)?cr(\s[^>]*)?\/>/g;

/**
 * Word 2007+ (.docx): the body through mammoth (tables, lists, text boxes, footnotes, equations
 * through docx-math.ts; comments
 * excluded; tracked changes in their current state: w:ins kept, w:del dropped), headers before
 * the body and footers after it, as the corpus references do. Pages are split only at explicit
 * page breaks (w:br type="page"): a .docx stores no layout, and w:lastRenderedPageBreak only
 * records where Word last happened to paginate.
 */
export async function extractDocx(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const { zip } = await openZipPackage(bytes, 'the .docx');
  const main = zip.file(MAIN_PART);
  if (!main) throw new DocumentError('400-001', 'Invalid file type', ['the ZIP package has no word/document.xml']);
  const originalXml = await main.async('string');
  let documentXml = originalXml;
  const styles = readStyles(await readXmlPart(zip, STYLES_PART));
  let equations: Equation[] = [];
  const hasMath = /<([\w.-]+:)?oMath[\s>]/.test(documentXml);
  // Numbering is read when paragraphs or their styles are numbered (styles.xml is one of the places).
  const numbering = /<([\w.-]+:)?numPr[\s>]/.test(documentXml) || [...styles.values()].some((s) => s.numbering) ? await readXmlPart(zip, NUMBERING_PART) : null;
  if (numbering) documentXml = labelNumberedParagraphs(documentXml, numbering, styles);
  const parsed = hasMath ? parseXml(documentXml) : null;
  if (parsed) {
    equations = extractEquations(parsed);
    if (equations.length > 0) documentXml = new XMLSerializer().serializeToString(parsed);
  }
  const changed = documentXml !== originalXml;
  if (changed) zip.file(MAIN_PART, documentXml);
  const mammothInput = await withLineBreaksForCr(zip, documentXml, bytes, changed);
  opts.signal?.throwIfAborted();

  const { value: html } = await mammoth.convertToHtml(
    { buffer: mammothInput },
    {
      // Word's Title style is the document's title (Docling and pandoc make it a heading too).
      // Styles based on a heading style are headings too (a "heading 2 unnumbered"), as in Word's outline.
      styleMap: ["br[type='page'] => hr", "p[style-name='Title'] => h1:fresh", ...headingStyleRules(styles)],
      // Images are not processed (SPEC): never read or base64-encode them.
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
      externalFileAccess: false,
    },
  );
  const { headers, footers } = await readHeadersFooters(zip, documentXml);
  opts.signal?.throwIfAborted();

  const root = parse(html);
  prepareMammothHtml(root, opts.output);
  finishListLabels(root);
  const pages = splitPages(root).map((page) =>
    restoreEquations(
      opts.output === 'markdown' ? finishMarkdownNotes(fragmentToMarkdown(page.toString())) : htmlToText(page, { preserveWhitespace: true }),
      equations,
      opts.output === 'markdown',
    ),
  );
  pages[0] = [...headers, pages[0]].filter((s) => s !== '').join('\n\n');
  pages[pages.length - 1] = [pages[pages.length - 1], ...footers].filter((s) => s !== '').join('\n\n');

  opts.onProgress?.(pages.length, pages.length);
  const notes = headers.length + footers.length > 0 ? [`headers: ${headers.length}, footers: ${footers.length}`] : [];
  return { kind: 'docx', pages, notes, ocrPages: 0 };
}

/**
 * mammoth does not know w:cr (a carriage return inside a run) and drops it, gluing the words
 * on both sides together. When a story part uses it, we rewrite it as the equivalent w:br and
 * repackage; JSZip reuses the compressed data of every untouched part.
 */
async function withLineBreaksForCr(zip: JSZip, documentXml: string, original: Buffer, alreadyChanged: boolean): Promise<Buffer> {
  let changed = alreadyChanged;
  for (const name of MAMMOTH_STORY_PARTS) {
    const file = zip.file(name);
    if (!file) continue;
    const xml = name === MAIN_PART ? documentXml : await file.async('string');
    const rewritten = xml.replace(CARRIAGE_RETURN, '<$1br/>');
    if (rewritten === xml) continue;
    zip.file(name, rewritten);
    changed = true;
  }
  return changed ? zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }) : original;
}
