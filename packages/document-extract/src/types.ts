/**
 * Kinds of document we can read, detected from the bytes (the caller's declared type is only a
 * hint; it decides only between text formats: csv and md are text a declaration names).
 */
export type DocumentKind =
  | 'pdf'
  | 'docx'
  | 'doc'
  | 'rtf'
  | 'odt'
  | 'html'
  | 'md'
  | 'epub'
  | 'xlsx'
  | 'xls'
  | 'ods'
  | 'csv'
  | 'pptx'
  | 'odp'
  | 'jpeg'
  | 'png'
  | 'tiff'
  | 'heic'
  | 'txt';

export type OutputFormat = 'plain' | 'markdown';

/** OCR service handed to extractors; one engine (a pool of tesseract.js workers) is shared per process. */
export interface OcrEngine {
  /**
   * Recognise one image (PNG or JPEG bytes, already preprocessed). A job still queued when
   * `signal` aborts is dropped (rejected); one already being read finishes. With `transfer`, the
   * image's memory moves to the thread that reads it (the caller's buffer is left empty) instead
   * of being copied: a page image is several MB.
   */
  recognize(image: Buffer, options?: { dpi?: number; signal?: AbortSignal; transfer?: boolean }): Promise<{ text: string; confidence: number }>;
  /** Images it reads at once (its workers): how many pages an extractor should keep in flight. */
  readonly parallelism: number;
  close(): Promise<void>;
}

export interface ExtractOptions {
  output: OutputFormat;
  /** Present when OCR is possible; extractors that need OCR and get none fail with 500-001. */
  ocr?: OcrEngine;
  /** Aborted when the job's time budget is spent. */
  signal?: AbortSignal;
  /** Called after every page with pages done and total. */
  onProgress?: (pagesDone: number, pagesTotal: number) => void;
}

export interface ExtractedDocument {
  kind: DocumentKind;
  /** One entry per page (a single entry for formats without pages); joined by the caller with PAGE_BREAK. */
  pages: string[];
  /** Notes for operators, e.g. which text decoder was used, pages that were OCR'd. */
  notes: string[];
  /** Pages (and image pages) whose text was read by OCR; 0 for formats that are never OCR'd. */
  ocrPages: number;
  /** Text files only: the character decoder used, a WHATWG label (utf-8, utf-16le, utf-16be, windows-1252). */
  encoding?: string;
}

/** Pages are joined with this in both outputs (SPEC "Document parse job"). */
export const PAGE_BREAK = '\n\n=== Page Break ===\n\n';
