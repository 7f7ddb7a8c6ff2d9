// extractPdf and extractImage are not re-exported: parseDocument loads them on first use, and a
// static re-export here would load pdf.js and sharp into every process that imports this package.
export { parseDocument, MAX_DOCUMENT_BYTES, type ParseDocumentOptions, type ParsedDocument } from './parse-document.js';
export { detectKind, describeUnsupported } from './detect.js';
export { extractDoc, extractDocx, extractHtml, extractRtf, MAX_TOTAL_UNCOMPRESSED } from './office/index.js';
export { extractTxt, MAX_LINE_BYTES, MAX_LINES } from './txt/index.js';
export { createLazyOcrEngine, createOcrEngine, type OcrEngineOptions, type OcrWorkerEvent } from './ocr/index.js';
export { DocumentError } from './errors.js';
export { PAGE_BREAK, type DocumentKind, type ExtractedDocument, type ExtractOptions, type OcrEngine, type OutputFormat } from './types.js';
