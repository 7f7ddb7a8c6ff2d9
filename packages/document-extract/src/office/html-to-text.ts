import { HTMLElement, type Node, NodeType, TextNode } from 'node-html-parser';

/**
 * Plain text from an HTML tree: paragraphs separated by blank lines, list items one per line,
 * table rows one per line with cells separated by tabs (SPEC: tables are "converted to text").
 * Used for mammoth's HTML (whitespace there is the document's own, so it is kept) and for HTML
 * files sent as documents (whitespace collapsed as a browser would).
 */
export interface HtmlToTextOptions {
  preserveWhitespace: boolean;
}

const SKIPPED = new Set(['head', 'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'select', 'button', 'img', 'title', 'meta', 'link']);
const PARAGRAPHS = new Set(['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'dl', 'table', 'section', 'article', 'header', 'footer', 'main', 'aside', 'nav', 'figure', 'figcaption', 'address', 'form', 'fieldset', 'hr', 'body', 'html']);
const LINES = new Set(['li', 'dt', 'dd', 'tr', 'caption']);
const CELLS = new Set(['td', 'th']);

export function htmlToText(root: HTMLElement, options: HtmlToTextOptions): string {
  const writer = new TextWriter(options.preserveWhitespace);
  walk(root, writer, { inList: false, inPre: false });
  return writer.finish();
}

interface Context {
  inList: boolean;
  inPre: boolean;
}

function walk(node: Node, writer: TextWriter, context: Context): void {
  if (node.nodeType === NodeType.TEXT_NODE) {
    writer.text((node as TextNode).text, context.inPre);
    return;
  }
  if (!(node instanceof HTMLElement)) return;
  const tag = node.rawTagName?.toLowerCase() ?? '';
  if (SKIPPED.has(tag)) return;
  if (tag === 'br') return writer.newline();
  if (tag === 'input') return writeInput(node, writer);
  if (tag === 'tr') return writeRow(node, writer, context);

  // Inside a list item, paragraphs and nested lists are lines of that item, not separate paragraphs.
  const block = PARAGRAPHS.has(tag) ? (context.inList ? 'line' : 'paragraph') : LINES.has(tag) ? 'line' : null;
  if (block === 'paragraph') writer.paragraphBreak();
  if (block === 'line') writer.lineBreak();
  const inner: Context = { inList: context.inList || tag === 'li', inPre: context.inPre || tag === 'pre' };
  for (const child of node.childNodes) walk(child, writer, inner);
  if (block === 'paragraph') writer.paragraphBreak();
  if (block === 'line') writer.lineBreak();
}

function writeRow(row: HTMLElement, writer: TextWriter, context: Context): void {
  const cells: string[] = [];
  for (const cell of row.childNodes) {
    if (!(cell instanceof HTMLElement) || !CELLS.has(cell.rawTagName?.toLowerCase() ?? '')) continue;
    const cellWriter = new TextWriter(writer.preserveWhitespace);
    for (const child of cell.childNodes) walk(child, cellWriter, context);
    // One row, one line: the cell's own paragraphs and line breaks become spaces.
    cells.push(cellWriter.finish().replace(/\s*\n\s*/g, ' ').trim());
  }
  if (cells.every((c) => c === '')) return;
  writer.lineBreak();
  writer.text(cells.join('\t'), true);
  writer.lineBreak();
}

function writeInput(input: HTMLElement, writer: TextWriter): void {
  const type = input.getAttribute('type')?.toLowerCase();
  if (type === 'checkbox' || type === 'radio') writer.text(input.hasAttribute('checked') ? '☒' : '☐', true);
  else if (type !== 'hidden') writer.text(input.getAttribute('value') ?? '', false);
}

class TextWriter {
  private out = '';
  private pending = 0;
  private atLineStart = true;

  constructor(readonly preserveWhitespace: boolean) {}

  text(text: string, verbatim: boolean): void {
    let value = text;
    if (!verbatim && !this.preserveWhitespace) {
      value = value.replace(/\s+/g, ' ');
      if (this.atLineStart || this.pending > 0) value = value.trimStart();
    }
    if (value === '') return;
    if (this.pending > 0 && this.out !== '') this.out += '\n'.repeat(this.pending);
    this.pending = 0;
    this.out += value;
    this.atLineStart = value.endsWith('\n');
  }

  newline(): void {
    this.flushPending();
    this.out += '\n';
    this.atLineStart = true;
  }

  lineBreak(): void {
    if (!this.atLineStart) this.pending = Math.max(this.pending, 1);
  }

  paragraphBreak(): void {
    this.pending = 2;
  }

  finish(): string {
    return this.out.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
  }

  private flushPending(): void {
    if (this.pending > 0 && this.out !== '') this.out += '\n'.repeat(this.pending);
    this.pending = 0;
  }
}
