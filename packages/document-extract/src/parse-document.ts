import { describeUnsupported, detectKind } from './detect.js';
import { DocumentError } from './errors.js';
import { extractDoc, extractDocx, extractHtml, extractRtf } from './office/index.js';
import { extractMd, extractTxt } from './txt/index.js';
import { type DocumentKind, type ExtractedDocument, type ExtractOptions, PAGE_BREAK } from './types.js';

/** SPEC "Limits": parser file size 50 MB, all document types (the downloader enforces it too). */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;

export interface ParseDocumentOptions extends ExtractOptions {
  /** The caller's `type` (pdf, doc, docx, jpg, png, txt, ...): a hint only, the bytes decide. */
  declaredType?: string;
  /** Called once the kind is known from the bytes, before extraction (which may still fail). */
  onKindDetected?: (kind: DocumentKind) => void;
}

export interface ParsedDocument {
  kind: DocumentKind;
  /** Pages joined with PAGE_BREAK. */
  text: string;
  pages: number;
  notes: string[];
  /** Pages read by OCR (scanned PDF pages, image pages). */
  ocrPages: number;
  /** Text files: the decoder used (utf-8, utf-16le, utf-16be, or windows-1252 for "Latin-1"). */
  encoding?: string;
}

type Extractor = (bytes: Buffer, opts: ExtractOptions) => Promise<ExtractedDocument>;

/**
 * Detects what the bytes are and extracts their text. Fails with DocumentError only:
 * 400-001 for files we cannot or will not read, 500-001 for our own failures.
 */
export async function parseDocument(bytes: Buffer, options: ParseDocumentOptions): Promise<ParsedDocument> {
  if (bytes.length > MAX_DOCUMENT_BYTES) throw new DocumentError('400-001', 'File too large', ['file is larger than 50 MB']);
  const kind = detectKind(bytes, options.declaredType);
  if (!kind) throw new DocumentError('400-001', 'Unsupported file type', [`detected: ${describeUnsupported(bytes)}`]);
  options.onKindDetected?.(kind);

  const { output, ocr, signal, onProgress } = options;
  let extracted: ExtractedDocument;
  try {
    extracted = await (await extractorFor(kind))(bytes, { output, ocr, signal, onProgress });
  } catch (error) {
    throw asDocumentError(error, kind, signal);
  }
  const pages = extracted.pages.map((page) => page.trimEnd());
  return {
    kind: extracted.kind,
    text: pages.join(PAGE_BREAK),
    pages: pages.length,
    notes: extracted.notes,
    ocrPages: extracted.ocrPages,
    ...(extracted.encoding ? { encoding: extracted.encoding } : {}),
  };
}

/**
 * PDF, image and office readers are imported on first use: pdf.js, sharp and tesseract.js are
 * heavy, and a process that only reads Word or text files never needs them.
 */
async function extractorFor(kind: DocumentKind): Promise<Extractor> {
  switch (kind) {
    case 'pdf': {
      const { extractPdf } = await import('./pdf/index.js');
      return extractPdf;
    }
    case 'jpeg':
    case 'png':
    case 'tiff':
    case 'heic': {
      const { extractImage } = await import('./image/index.js');
      return (bytes, opts) => extractImage(bytes, kind, opts);
    }
    case 'docx':
      return extractDocx;
    case 'doc':
      return extractDoc;
    case 'rtf':
      return extractRtf;
    case 'html':
      return extractHtml;
    case 'txt':
      return extractTxt;
    case 'md':
      return extractMd;
    default:
      return OFFICE_READERS[kind]();
  }
}

/** The readers of the formats added with issue 41, loaded on first use like pdf.js (SheetJS alone is 1 MB of code). */
const OFFICE_READERS: Record<'xlsx' | 'xls' | 'ods' | 'csv' | 'pptx' | 'odp' | 'odt' | 'epub', () => Promise<Extractor>> = {
  xlsx: async () => (await import('./sheets/extract-xlsx.js')).extractXlsx,
  xls: async () => (await import('./sheets/extract-xls.js')).extractXls,
  ods: async () => (await import('./sheets/extract-ods.js')).extractOds,
  csv: async () => (await import('./sheets/extract-csv.js')).extractCsv,
  pptx: async () => (await import('./slides/extract-pptx.js')).extractPptx,
  odp: async () => (await import('./odf/extract-odp.js')).extractOdp,
  odt: async () => (await import('./odf/extract-odt.js')).extractOdt,
  epub: async () => (await import('./epub/extract-epub.js')).extractEpub,
};

function asDocumentError(error: unknown, kind: DocumentKind, signal: AbortSignal | undefined): DocumentError {
  if (error instanceof DocumentError) return error;
  if (signal?.aborted) {
    const reason = signal.reason instanceof Error ? signal.reason.message : 'the time budget was spent';
    return new DocumentError('500-001', 'Processing error', [`processing of the ${kind} file was stopped: ${reason}`]);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DocumentError('500-001', 'Processing error', [`${kind} extraction failed: ${message.slice(0, 300)}`]);
}
