export { extractTxt } from './extract-txt.js';
export { extractMd } from './extract-md.js';
export { MAX_LINE_BYTES, MAX_LINES } from './text-limits.js';
