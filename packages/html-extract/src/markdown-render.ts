import { BREAKS_LINE, hidden, KINDS, languageOf, preformattedText, skipped } from './markdown-elements.js';
import { codeFence, codeSpan, escapeHeadingEnd, escapeText, linkDestination, linkTitle } from './markdown-escape.js';
import { InlineBuffer, OneLine, type FrameKind } from './markdown-inline.js';
import { formatTable, isFrameTable, isLayoutTable, tableShape } from './markdown-table.js';
import { BlockWriter } from './markdown-writer.js';

const ELEMENT = 1;
const TEXT = 3;
/**
 * Past this depth a subtree is written as its text. extractPage's parse caps depth well below
 * (cap-nesting MAX_DEPTH), but renderMarkdown also takes subtrees parsed elsewhere, and the
 * walk recurses.
 */
const MAX_DEPTH = 500;
/**
 * A table cell with a table, or with several paragraphs (headings, quotes, code blocks) and this
 * much text, holds prose: its table lays out the page, and is rendered as blocks rather than
 * squeezed into rows. Infobox cells have several short paragraphs; a page laid out in a table,
 * a long one.
 */
const PROSE_CELL_CHARS = 500;
const PROSE = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre']);

/**
 * GitHub-flavoured markdown of a DOM subtree in one walk: inline content goes into an
 * InlineBuffer (one paragraph at a time), finished lines into a BlockWriter that prefixes them
 * for the quotes and list items they stand in. Nothing written is read again.
 */
class MarkdownRenderer {
  private readonly writer = new BlockWriter();
  private inline = new InlineBuffer();
  private readonly cellBuffer = new InlineBuffer();
  private readonly oneLineSink = new OneLine();
  /** Paragraphs met in the table cell being rendered; Infinity once a table is. */
  private cellBlocks = 0;
  /** Inside a heading or table cell, which are one line: blocks and breaks become spaces there. */
  private oneLine = 0;

  constructor(
    private readonly resolve: (url: string) => string,
    private readonly documentTables: boolean,
  ) {}

  render(root: Element): string {
    this.element(root, 0);
    this.flush();
    return this.writer.toString();
  }

  private children(el: Element, depth: number): void {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      const type = child.nodeType;
      if (type === TEXT) this.inline.text(child.nodeValue ?? '');
      else if (type === ELEMENT) this.element(child as Element, depth + 1);
    }
  }

  private element(el: Element, depth: number): void {
    const kind = KINDS.get(el.localName);
    if (kind === 'skip' || hidden(el)) return;
    if (depth > MAX_DEPTH) return this.inline.text(el.textContent ?? '');
    if (kind === undefined) return this.children(el, depth);
    if (this.oneLine && BREAKS_LINE.has(kind)) {
      if (kind === 'table') this.cellBlocks = Infinity;
      else if (PROSE.has(el.localName)) this.cellBlocks++;
      return this.spaced(el, depth);
    }
    switch (kind) {
      case 'block': return this.block(el, depth);
      case 'em': case 'strong': case 'del': return this.framed(el, kind, depth);
      case 'code': return this.code(el);
      case 'pre': return this.pre(el);
      case 'br': return this.br();
      case 'img': return this.image(el);
      case 'a': return this.link(el, depth);
      case 'heading': return this.heading(el, Number(el.localName[1]), depth);
      case 'ul': return this.list(el, false, depth);
      case 'ol': return this.list(el, true, depth);
      case 'li': return this.strayItem(el, depth);
      case 'quote': return this.quote(el, depth);
      case 'table': return this.table(el, depth);
      case 'dt': return this.term(el, depth);
      case 'dd': return this.definition(el, depth);
      case 'hr': return this.rule();
    }
  }

  /** Ends the paragraph being built (a heading or cell) and returns it as one line. */
  private takeOneLine(): string {
    const sink = this.oneLineSink;
    sink.text = '';
    this.inline.take(sink, false);
    return sink.text;
  }

  /** Ends the paragraph being built and writes its lines. */
  private flush(): void {
    this.inline.take(this.writer);
  }

  private startBlock(): void {
    this.flush();
    this.writer.breakAtLeast(2);
  }

  private block(el: Element, depth: number): void {
    this.startBlock();
    this.children(el, depth);
    this.startBlock();
  }

  private spaced(el: Element, depth: number): void {
    this.inline.whitespace();
    this.children(el, depth);
    this.inline.whitespace();
  }

  private framed(el: Element, kind: FrameKind, depth: number): void {
    const frame = this.inline.openFrame(kind);
    this.children(el, depth);
    this.inline.closeFrame(frame);
  }

  private br(): void {
    if (this.oneLine) this.inline.whitespace();
    // Two in a row separate paragraphs, as they do on screen.
    else if (this.inline.hardBreak()) this.startBlock();
  }

  private rule(): void {
    this.startBlock();
    this.writer.line('---');
    this.writer.breakAtLeast(2);
  }

  private image(el: Element): void {
    const src = el.getAttribute('src')?.trim();
    // Inline data: images are bytes, not something a reader of the markdown can follow.
    if (!src || /^data:/i.test(src)) return;
    const alt = escapeText(oneSpaced(el.getAttribute('alt') ?? ''));
    this.inline.atom(`![${alt}](${linkDestination(this.resolve(src))}${linkTitle(el.getAttribute('title'))})`);
  }

  private link(el: Element, depth: number): void {
    const href = el.getAttribute('href')?.trim();
    if (!href || /^javascript:/i.test(href)) return this.children(el, depth);
    const url = this.resolve(href);
    const frame = this.inline.openFrame('link', `](${linkDestination(url)}${linkTitle(el.getAttribute('title'))})`);
    if (frame && isAutolink(el, url)) {
      this.inline.closeFrame(frame);
      return this.inline.atom(`<${url}>`);
    }
    this.children(el, depth);
    this.inline.closeFrame(frame);
  }

  private code(el: Element): void {
    const code = preformattedText(el).replace(/[ \t\n\r\f]+/g, ' ');
    if (code.startsWith(' ')) this.inline.whitespace();
    const inner = code.replace(/^ | $/g, '');
    if (inner) this.inline.atom(codeSpan(inner));
    if (inner && code.endsWith(' ')) this.inline.whitespace();
  }

  private pre(el: Element): void {
    if (this.oneLine) return this.code(el);
    // Leading blank lines include the newline HTML drops after `<pre>` (linkedom keeps it).
    let code = preformattedText(el);
    if (code.includes('\r')) code = code.replace(/\r\n?/g, '\n');
    code = code.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
    this.startBlock();
    if (code) {
      const fence = codeFence(code);
      this.writer.line(fence + languageOf(el));
      for (const line of code.split('\n')) this.writer.line(line.trimEnd());
      this.writer.line(fence);
    }
    this.writer.breakAtLeast(2);
  }

  private heading(el: Element, level: number, depth: number): void {
    this.startBlock();
    this.oneLine++;
    this.children(el, depth);
    this.oneLine--;
    const text = this.takeOneLine();
    if (text) this.writer.line(`${'#'.repeat(level)} ${escapeHeadingEnd(text)}`);
    this.writer.breakAtLeast(2);
  }

  private list(el: Element, ordered: boolean, depth: number): void {
    this.flush();
    const reversed = ordered && el.hasAttribute('reversed');
    const start = Number.parseInt(el.getAttribute('start') ?? '', 10);
    let number = Number.isFinite(start) ? start : reversed ? countItems(el) : 1;
    // A nested list follows its item's text on the next line, except an ordered list not
    // starting at 1, which CommonMark does not let interrupt a paragraph.
    if (this.writer.inListItem() && (!ordered || number === 1)) this.writer.breakExactly(1);
    else this.writer.breakAtLeast(2);
    let first = true;
    let indent = '';
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT) {
        const text = child.nodeValue ?? '';
        if (indent && /\S/.test(text)) this.continued(indent, () => this.inline.text(text));
        else this.inline.text(text);
        continue;
      }
      if (child.nodeType !== ELEMENT) continue;
      const item = child as Element;
      if (item.localName !== 'li') {
        // A list or block nested directly in a list (invalid, common) belongs to the item before it, as on screen.
        if (indent) this.continued(indent, () => this.element(item, depth + 1));
        else this.element(item, depth + 1);
        continue;
      }
      if (skipped(item)) continue;
      const value = ordered ? Number.parseInt(item.getAttribute('value') ?? '', 10) : Number.NaN;
      if (Number.isFinite(value)) number = value;
      const marker = ordered ? orderedMarker(number) : '- ';
      indent = spaces(marker.length);
      this.item(item, marker, indent, first, depth + 1);
      first = false;
      number += reversed ? -1 : 1;
    }
    this.startBlock();
  }

  private item(li: Element, marker: string, indent: string, first: boolean, depth: number): void {
    this.flush();
    // Items stay one line apart even after an item that ended with a paragraph or nested list.
    if (first) this.writer.breakAtLeast(1);
    else this.writer.breakExactly(1);
    this.writer.open('item', marker, indent);
    this.children(li, depth);
    this.flush();
    this.writer.close();
  }

  /** Renders content as more of the item before it. */
  private continued(indent: string, render: () => void): void {
    this.flush();
    this.writer.open('item', indent, indent, true);
    render();
    this.flush();
    this.writer.close();
  }

  /** An `<li>` outside any list: a one-item list, joined to the items right before it. */
  private strayItem(li: Element, depth: number): void {
    this.item(li, '- ', '  ', li.previousElementSibling?.localName !== 'li', depth);
    this.writer.breakAtLeast(2);
  }

  private quote(el: Element, depth: number): void {
    this.startBlock();
    this.writer.open('quote', '> ');
    this.children(el, depth);
    this.flush();
    this.writer.close();
    this.writer.breakAtLeast(2);
  }

  /** A `<dt>`: a bold line, its definitions right below it. */
  private term(el: Element, depth: number): void {
    this.startBlock();
    this.framed(el, 'strong', depth);
    this.startBlock();
  }

  /** A `<dd>`: `: definition` (the definition-list syntax of PHP Markdown Extra and pandoc; plain text elsewhere). */
  private definition(el: Element, depth: number): void {
    this.flush();
    const after = el.previousElementSibling?.localName;
    if (after === 'dt' || after === 'dd') this.writer.breakExactly(1);
    else this.writer.breakAtLeast(2);
    this.writer.open('item', ': ', '  ');
    this.children(el, depth);
    this.flush();
    this.writer.close();
    this.writer.breakAtLeast(2);
  }

  private table(el: Element, depth: number): void {
    const shape = tableShape(el);
    const document = this.documentTables;
    if (document ? isFrameTable(shape) : isLayoutTable(el, shape)) return this.block(el, depth);
    if (document) shape.headed = true;
    let layout = false;
    const lines = formatTable(
      shape,
      (cell) => {
        const text = this.cell(cell, depth + 2);
        if (!document && (this.cellBlocks === Infinity || (this.cellBlocks > 1 && this.cellBuffer.textLength >= PROSE_CELL_CHARS))) layout = true;
        return text;
      },
      document,
    );
    // Found while rendering the cells, which spares a search through every table beforehand.
    if (layout) return this.block(el, depth);
    this.startBlock();
    if (shape.caption) this.block(shape.caption, depth + 1);
    for (const line of lines) this.writer.line(line);
    this.writer.breakAtLeast(2);
  }

  /**
   * A table cell's content on one line, pipes escaped; rendered apart from the paragraph around
   * the table. Cells never nest: inside one, a table is only text.
   */
  private cell(cell: Element, depth: number): string {
    const outer = this.inline;
    this.inline = this.cellBuffer;
    this.cellBlocks = 0;
    this.cellBuffer.textLength = 0;
    this.oneLine++;
    this.children(cell, depth);
    this.oneLine--;
    const text = this.takeOneLine();
    this.inline = outer;
    return text.includes('|') ? text.replace(/\|/g, '\\|') : text;
  }
}

/** Whitespace collapsed and trimmed; runs only are replaced, which spares most short texts a copy. */
const oneSpaced = (text: string) => text.replace(/\s{2,}|[^\S ]/g, ' ').trim();

/** A link whose only content is its own address, which `<url>` says more simply. */
function isAutolink(link: Element, url: string): boolean {
  const text = link.firstChild;
  return text !== null && text.nodeType === TEXT && text.nextSibling === null && text.nodeValue?.trim() === url && /^https?:\/\/[^\s<>]+$/i.test(url);
}

/** Markers and indents, made once: a page has thousands of list items. */
const ORDERED_MARKERS: string[] = [];
const SPACES: string[] = [];
const orderedMarker = (n: number) => (n >= 0 && n < 1000 ? (ORDERED_MARKERS[n] ??= `${n}. `) : `${n}. `);
const spaces = (n: number) => (SPACES[n] ??= ' '.repeat(n));

function countItems(list: Element): number {
  let count = 0;
  for (let child = list.firstElementChild; child; child = child.nextElementSibling) if (child.localName === 'li') count++;
  return count;
}

/** Markdown of `root` and its subtree; `resolve` turns each link and image address into the one to write. */
export function domToMarkdown(root: Element, resolve: (url: string) => string = (url) => url, documentTables = false): string {
  return new MarkdownRenderer(resolve, documentTables).render(root);
}
