import { pipeTable } from '../markup/pipe-table.js';

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

/**
 * Markdown of text whose tables are rows of tab-separated cells, each row ending in a tab (Word
 * 97-2003's cell marks and RTF's \cell as word-extractor and rtf-to-text give them): runs of such
 * rows become pipe tables, the rest paragraphs (linesToMarkdownParagraphs). The lines between two
 * row ends are one row (a cell's own paragraphs) when they make as many cells as the row before;
 * a table's first row is its row-end line and the tabbed lines just before it.
 */
export function linesToMarkdown(raw: string): string {
  const blocks: string[] = [];
  let text: string[] = [];
  let rows: string[][] = [];
  let pending: string[] = [];
  const flush = () => {
    if (rows.length > 0) blocks.push(pipeTable(rows));
    rows = [];
    const paragraphs = linesToMarkdownParagraphs(tidyLines(text.join('\n')));
    if (paragraphs !== '') blocks.push(paragraphs);
    text = [];
  };
  for (const line of raw.replace(/\r\n?/g, '\n').split('\n')) {
    if (!line.endsWith('\t')) {
      pending.push(line);
      continue;
    }
    const continued = [...pending, line].join('\n').slice(0, -1).split('\t');
    if (rows.length > 0 && continued.length === rows[rows.length - 1].length) {
      rows.push(continued);
      pending = [];
      continue;
    }
    // A new table: the text before it first, then its first row.
    let start = pending.length;
    while (start > 0 && pending[start - 1].includes('\t')) start--;
    if (rows.length > 0) blocks.push(pipeTable(rows));
    rows = [];
    text.push(...pending.slice(0, start));
    flush();
    rows.push([...pending.slice(start), line].join('\n').slice(0, -1).split('\t'));
    pending = [];
  }
  if (rows.length > 0) blocks.push(pipeTable(rows));
  rows = [];
  text.push(...pending);
  flush();
  return blocks.join('\n\n');
}
