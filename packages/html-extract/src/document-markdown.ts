// The markdown renderer alone, for callers that render documents rather than web pages (the
// document parser): the package's index also loads Readability and the public-suffix list.
export { renderMarkdown, type MarkdownOptions } from './markdown.js';
export { capNesting } from './cap-nesting.js';
export { parseDocument } from './parse-document.js';
