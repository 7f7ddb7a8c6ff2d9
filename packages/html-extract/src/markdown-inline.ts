import { escapeLineStart, escapeText, isWordChar } from './markdown-escape.js';

export type FrameKind = 'em' | 'strong' | 'del' | 'link';

/**
 * An inline element whose markers surround its content: emphasis, strong, strikethrough or a link.
 * Markers are written lazily, with the first content, so empty elements leave no marker and
 * whitespace at their edges ends up outside them. A frame outlives a paragraph: when a block
 * (a `<div>` in an `<a>`) ends the paragraph, open frames are closed there and opened again with
 * the next content.
 */
export interface Frame {
  kind: FrameKind;
  /** The closing marker; an emphasis marker is chosen when it opens. */
  close: string;
  opened: boolean;
  /** Where the opening marker stands in the paragraph, so `_` can still become `*`. */
  openIndex: number;
}

const OPEN: Record<FrameKind, string> = { em: '_', strong: '**', del: '~~', link: '[' };
/**
 * Whitespace a browser collapses to one space: runs, and other whitespace than a space. A lone
 * space is left alone, which spares the replace in most text; each alternative starts with one
 * fixed class, which V8 scans fastest (measured).
 */
const COLLAPSIBLE = / [\t\n\r\f ]+|[\t\n\r\f][\t\n\r\f ]*/g;

/** Where a paragraph's finished lines go. */
export interface LineSink {
  /** A line given as the pieces `parts[from, to)`, ending in a hard break if asked. */
  lineParts(parts: readonly string[], from: number, to: number, hardBreak: boolean): void;
}

/** A sink that keeps a paragraph on one line (headings, table cells). */
export class OneLine implements LineSink {
  text = '';
  lineParts(parts: readonly string[], from: number, to: number): void {
    let text = parts[from];
    for (let i = from + 1; i < to; i++) text += parts[i];
    this.text = this.text ? `${this.text} ${text}` : text;
  }
}

/**
 * Builds one paragraph of inline markdown from text nodes, atoms (code spans, images) and
 * frames in document order: whitespace collapsed as a browser does, text escaped, `<br>` kept as
 * hard breaks.
 */
export class InlineBuffer {
  /** Text not yet written: raw text nodes (and spaces) since the last markup. */
  private run = '';
  /**
   * The paragraph's pieces, `parts[0, count)`. The array is kept and overwritten, never
   * emptied: a page has thousands of paragraphs, and regrowing one each time was most of the
   * garbage (and of the collector's time) on a 2 MB article.
   */
  private readonly parts: string[] = [];
  private count = 0;
  /** Index in `parts` where each finished line ends, `lineEnds[0, lines)`. */
  private readonly lineEnds: number[] = [];
  private lines = 0;
  private lineStart = 0;
  private readonly frames: Frame[] = [];
  /** Collapsed whitespace seen but not yet written: it goes before the next content, after closing markers. */
  private space = false;
  /** A `<br>` seen but not yet written: trailing breaks are dropped, two in a row end the paragraph. */
  private lineBreak = false;
  /**
   * The closing marker written last, while nothing has followed it yet: a `_` that the next
   * character may make intraword, or a marker that an element of the same kind right after it
   * continues (`**a****b**` would not read as two bold words).
   */
  private lastClose: Frame | null = null;
  private lastCloseIndex = -1;
  /** Characters of text (collapsed, not markup) written so far; the owner resets it. */
  textLength = 0;

  /**
   * Text of a text node (outside `<pre>`). Consecutive text is escaped as one run: the parser
   * splits text at character references (`&lt;div>` arrives as `<` and `div>`), and whether a
   * `<`, `&` or `_` needs escaping depends on the characters after it.
   */
  text(raw: string): void {
    this.run += raw;
  }

  /** Markdown that is already final: a code span, an image, an autolink. */
  atom(markdown: string): void {
    this.endRun();
    if (markdown) this.content(markdown);
  }

  /** Collapsible whitespace (also what a block boundary becomes inside a one-line context). */
  whitespace(): void {
    this.run += ' ';
  }

  /** A `<br>`. Returns true for the second one in a row: the caller ends the paragraph there. */
  hardBreak(): boolean {
    this.endRun();
    if (!this.count) return false;
    if (this.lineBreak) return true;
    this.lineBreak = true;
    return false;
  }

  /** Starts an inline element; null when an element of the same kind is already open (nested `<b>` in `<b>`). */
  openFrame(kind: FrameKind, close = OPEN[kind]): Frame | null {
    this.endRun();
    for (let i = 0; i < this.frames.length; i++) if (this.frames[i].kind === kind) return null;
    const frame: Frame = { kind, close, opened: false, openIndex: -1 };
    this.frames.push(frame);
    return frame;
  }

  closeFrame(frame: Frame | null): void {
    this.endRun();
    if (!frame) return;
    const at = this.frames.lastIndexOf(frame);
    // DOM nesting is proper, so this is the innermost frame; anything above it was left open by mistake.
    while (at >= 0 && this.frames.length > at) this.writeClose(this.frames.pop()!);
  }

  /**
   * Ends the paragraph: its lines go to `sink`, trimmed at the end and escaped at the start
   * (unless it is a heading or cell, which is not at a line start); hard breaks become a
   * trailing backslash, which needs no trailing spaces. Open frames are closed at its end and
   * stay open for the next paragraph. An empty paragraph writes nothing.
   */
  take(sink: LineSink, escapeStarts = true): void {
    this.endRun();
    if (!this.count) return;
    for (let i = this.frames.length - 1; i >= 0; i--) {
      this.writeClose(this.frames[i]);
      this.frames[i].opened = false;
    }
    const parts = this.parts;
    this.lineEnds[this.lines++] = this.count;
    let from = 0;
    let lineFrom = -1;
    let lineTo = -1;
    for (let l = 0; l < this.lines; l++) {
      const end = this.lineEnds[l];
      const to = trimLineEnd(parts, from, end);
      if (to > from) {
        if (lineFrom >= 0) sink.lineParts(parts, lineFrom, lineTo, true);
        if (escapeStarts) parts[from] = escapeLineStart(parts[from]);
        lineFrom = from;
        lineTo = to;
      }
      from = end;
    }
    if (lineFrom >= 0) sink.lineParts(parts, lineFrom, lineTo, false);
    this.count = 0;
    this.lines = 0;
    this.lineStart = 0;
    this.space = false;
    this.lineBreak = false;
    this.lastClose = null;
  }

  private endRun(): void {
    const run = this.run;
    if (!run) return;
    this.run = '';
    // Whitespace alone (the indentation between block elements, a good part of all text nodes)
    // needs no replace.
    let first = 0;
    while (first < run.length && isCollapsible(run.charCodeAt(first))) first++;
    if (first === run.length) {
      this.space = true;
      return;
    }
    let text = run.replace(COLLAPSIBLE, ' ');
    if (text.charCodeAt(0) === 32) {
      this.space = true;
      text = text.slice(1);
    }
    const trailingSpace = text.charCodeAt(text.length - 1) === 32;
    if (trailingSpace) text = text.slice(0, -1);
    if (text) {
      this.textLength += text.length;
      this.content(escapeText(text));
    }
    if (trailingSpace) this.space = true;
  }

  private content(markdown: string): void {
    if (this.lineBreak) {
      this.lineEnds[this.lines++] = this.count;
      this.lineStart = this.count;
      this.lineBreak = false;
      this.space = false;
      this.lastClose = null;
    }
    if (this.space && this.count > this.lineStart) this.push(' ');
    this.space = false;
    // The closing marker right before this content, if nothing came between them.
    const last = this.lastClose && this.lastCloseIndex === this.count - 1 ? this.lastClose : null;
    this.lastClose = null;
    if (this.frames.length && !this.frames[this.frames.length - 1].opened && startsWithSpace(markdown)) {
      // A marker next to whitespace (a &nbsp;) does not open emphasis in CommonMark: the space goes first.
      const text = markdown.trimStart();
      this.push(markdown.slice(0, markdown.length - text.length));
      if (!text) return;
      markdown = text;
    }
    const before = this.count;
    for (let i = 0; i < this.frames.length; i++) {
      const frame = this.frames[i];
      if (frame.opened) continue;
      if (last && this.count === before && last.kind === frame.kind && frame.kind !== 'link') {
        // The same markup continues: drop its closing marker instead of opening again.
        this.count--;
        frame.opened = true;
        frame.close = last.close;
        frame.openIndex = last.openIndex;
        continue;
      }
      this.writeOpen(frame);
    }
    if (last && this.count === before && last.kind === 'em' && this.parts[before - 1] === '_' && isWordChar(markdown[0])) {
      // `_` right before a letter is not emphasis in CommonMark; `*` is.
      this.parts[before - 1] = '*';
      this.parts[last.openIndex] = '*';
    }
    this.push(markdown);
  }

  private push(part: string): void {
    this.parts[this.count++] = part;
  }

  private writeOpen(frame: Frame): void {
    frame.opened = true;
    frame.openIndex = this.count;
    if (frame.kind === 'em') {
      const before = this.count > this.lineStart ? this.parts[this.count - 1] : '';
      frame.close = isWordChar(before[before.length - 1]) ? '*' : '_';
      this.push(frame.close);
    } else this.push(OPEN[frame.kind]);
  }

  private writeClose(frame: Frame): void {
    if (!frame.opened) return;
    // After a pending <br>, the marker still belongs to the line before it. Trailing whitespace
    // (a &nbsp;) goes after it, or the marker would not close.
    const last = this.parts[this.count - 1];
    const trailing = frame.kind !== 'link' && endsWithSpace(last) ? last.trimEnd() : last;
    if (trailing !== last) this.parts[this.count - 1] = trailing;
    this.lastCloseIndex = this.count;
    this.lastClose = frame;
    this.push(frame.close);
    if (trailing !== last) this.push(last.slice(trailing.length));
  }
}

/** Space, tab, line feed, form feed, carriage return: what a browser collapses. */
const isCollapsible = (code: number) => code === 32 || code === 10 || code === 9 || code === 13 || code === 12;

/** Whitespace other than collapsible ASCII: what `\s` and trim() also take (&nbsp;, ideographic space…). */
function isOtherSpace(code: number): boolean {
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

const startsWithSpace = (text: string) => isOtherSpace(text.charCodeAt(0));

function endsWithSpace(text: string): boolean {
  const code = text.charCodeAt(text.length - 1);
  return code <= 32 || isOtherSpace(code);
}

/** Trims trailing whitespace (a `&nbsp;`) off the line `parts[from, to)`; returns its new end. */
function trimLineEnd(parts: string[], from: number, to: number): number {
  while (to > from && endsWithSpace(parts[to - 1])) {
    parts[to - 1] = parts[to - 1].trimEnd();
    if (parts[to - 1]) break;
    to--;
  }
  return to;
}
