/**
 * Helpers for formats that give us lines of text and nothing more (legacy .doc, RTF):
 * a paragraph per line, table rows as tab-separated cells.
 */

/** Trailing whitespace (including the tab after a row's last cell) removed, runs of blank lines collapsed. */
export function tidyLines(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\n+$/g, '');
}

/**
 * Markdown: every line is a paragraph of its own (the only structure these formats give us).
 * Leading indentation goes: four spaces or a tab would turn the paragraph into a code block.
 */
export function linesToMarkdownParagraphs(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n\n');
}

export function joinParts(parts: string[]): string {
  return parts.filter((part) => part !== '').join('\n\n');
}
