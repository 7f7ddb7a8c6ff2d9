export { extractPdf } from './extract-pdf.js';
