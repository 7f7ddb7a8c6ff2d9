export * from './types.js';
export { extractPage, extractText } from './extract-page.js';
export { plainText } from './plain-text.js';
export { renderMarkdown, type MarkdownOptions } from './markdown.js';
export { prepareHtml } from './prepare-html.js';
export { largestFromSrcset } from './page-images.js';
export { capNesting, MAX_DEPTH } from './cap-nesting.js';
