export { extractDoc } from './extract-doc.js';
export { extractDocx } from './extract-docx.js';
export { extractHtml } from './extract-html.js';
export { extractRtf } from './extract-rtf.js';
export { MAX_TOTAL_UNCOMPRESSED } from './zip-guard.js';
