import { formRuns } from './form-fields.js';
import { holdsOversizedImage, MAX_EMBEDDED_IMAGE_PIXELS, type OpenedPdf, type PdfJs, type PdfPage } from './open-pdf.js';
import { inspectDrawing, type PaintedImage } from './page-operators.js';
import { structureRoles } from './structure-roles.js';
import { judgeText } from './text-quality.js';
import { textRuns, type PageRuns } from './text-runs.js';

export interface DocumentTraits {
  /** Tagged PDF: text carries structure roles. */
  tagged: boolean;
  /** The file has form fields or text-box annotations, so annotations are worth reading. */
  annotated: boolean;
  /** Some image is too large to decode and is skipped wherever it is drawn. */
  oversizedImage: boolean;
}

/**
 * What a document holds that changes how its pages are read. Annotations cost pdf.js several
 * milliseconds a page (link destinations are resolved), so they are only read when the file has
 * an AcroForm or mentions text boxes or widgets (which is missed only when those live in
 * compressed object streams of a file without a form).
 */
export async function documentTraits(pdf: OpenedPdf, bytes: Uint8Array): Promise<DocumentTraits> {
  const [markInfo, fields] = await Promise.all([pdf.doc.getMarkInfo().catch(() => null), pdf.doc.getFieldObjects().catch(() => null)]);
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    tagged: Boolean(markInfo?.Marked),
    annotated: Boolean(fields) || raw.includes('/FreeText') || raw.includes('/Widget'),
    oversizedImage: holdsOversizedImage(bytes),
  };
}

export interface FetchedPage {
  page: PdfPage;
  runs: PageRuns;
  /** Text items pdf.js produced for the page (what the stream budget counts as text operators). */
  textItems: number;
}

/** Loads a page with its text (form values and text boxes included as placed runs). */
export async function fetchPage(pdf: OpenedPdf, traits: DocumentTraits, pageNumber: number): Promise<FetchedPage> {
  const page = await pdf.doc.getPage(pageNumber);
  const viewport = page.getViewport({ scale: 1 });
  const [content, annotations, roles] = await Promise.all([
    page.getTextContent({ includeMarkedContent: traits.tagged }),
    traits.annotated ? page.getAnnotations() : Promise.resolve([]),
    traits.tagged ? structureRoles(page) : Promise.resolve(new Map<string, string>()),
  ]);
  const runs = textRuns(pdf.pdfjs.Util, viewport.transform, content.items, (id) => roles.get(id));
  runs.fields.push(...formRuns(viewport.transform, annotations));
  return { page, runs, textItems: content.items.length };
}

/** How a page is read: by OCR (and why), or from its text layer, with a note when that may miss something. */
export interface PageReading {
  /** Why the page is OCR'd, or null to use its text layer. */
  ocr: string | null;
  /**
   * The page is known to be upright: born-digital text (visible, no images) whose font lacks a
   * character map. Its rendering is read as is, without the skew and orientation analysis.
   */
  upright?: boolean;
  /** The page paints nothing but this image (a scan): OCR reads it instead of a rendering. */
  scan?: PaintedImage;
  note?: string;
}

/**
 * Whether a page must be read by OCR: no text but images (a scan), text without a usable
 * character mapping, or doubtful text drawn only invisibly (an OCR layer of a poor scan). Pages
 * without text or images are blank, not scans, unless the file holds an image too large to decode
 * (it is not drawn): such a page is noted, since a scan on it may be what is missing.
 */
export async function choosePageReading({ page, runs }: FetchedPage, traits: DocumentTraits, pdfjs: Pick<PdfJs, 'OPS' | 'Util'>): Promise<PageReading> {
  const verdict = judgeText([...runs.upright, ...runs.rotated].map((r) => r.str));
  if (verdict === 'good') return { ocr: null };
  // Its images are not decoded here: a scan's pixels are, if it is read by OCR (readScanImage).
  const drawing = await inspectDrawing(page, pdfjs);
  const scan = drawing.soleImage ?? undefined;
  if (verdict === 'unreadable') {
    // Visible text and no picture: typeset, so upright and straight. A scan with a garbage OCR
    // layer (images) may lie any way round and is analysed as scans are.
    return { ocr: 'text without a usable character mapping', upright: drawing.images === 0 && drawing.visibleText > 0, scan };
  }
  if (verdict === 'none') {
    if (drawing.images > 0) return { ocr: 'no text layer', scan };
    if (traits.oversizedImage) {
      const limit = `${MAX_EMBEDDED_IMAGE_PIXELS / 1e6} megapixels`;
      return { ocr: null, note: `no text found; the file holds an image over ${limit}, which is skipped to bound memory, so a scan on this page may not have been read` };
    }
    return { ocr: null };
  }
  return drawing.invisibleText > 0 && drawing.visibleText === 0 ? { ocr: 'only an invisible text layer', scan } : { ocr: null };
}
