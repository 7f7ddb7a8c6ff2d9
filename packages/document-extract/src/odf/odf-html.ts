import { listParagraphsHtml, type ListParagraph } from '../markup/list-html.js';
import { escapeHtml, readXml } from '../markup/xml-stream.js';

/**
 * OpenDocument text (the body of an .odt, the text boxes of an .odp) translated to HTML as it
 * streams by, for the shared HTML renderers (markdown through html-extract, plain text through
 * htmlToText):
 *  - text:h (its outline level) and paragraphs of the Title style are headings;
 *  - a paragraph in a text:list is an item of a bulleted or numbered list as its list style's
 *    level says (the list's style, else its paragraph style's); items are gathered flat with
 *    their depth and nested when written, because ODF splits one visible list over several
 *    text:list elements (an item holding only a deeper list continues the item before it);
 *  - table:table is a table, its spans kept (covered cells dropped; the renderer spreads spans);
 *  - text:note becomes a note label in the text and its body a note after the document;
 *  - annotations (comments), tracked deletions and drawings' alternative text are left out.
 */

/** Whether each level (1-based) of a list style numbers its items. */
type ListStyle = Map<number, boolean>;

interface TextStyle {
  parent?: string;
  bold?: boolean;
  italic?: boolean;
  strike?: boolean;
}

/** Styles read before the body: list styles, and paragraph and text styles' parents and emphasis. */
export class OdfStyles {
  readonly lists = new Map<string, ListStyle>();
  readonly text = new Map<string, TextStyle>();
  /** Paragraph styles that carry a list style (style:list-style-name). */
  readonly listStyleOf = new Map<string, string>();

  /** Reads the styles of a part (styles.xml, then content.xml's automatic styles); the body is passed over. */
  read(xml: string): void {
    let list: ListStyle | null = null;
    let style: TextStyle | null = null;
    readXml(xml, {
      open: (name, attributes) => {
        if (name === 'list-style' && attributes.name) this.lists.set(attributes.name, (list = new Map()));
        else if (list && (name === 'list-level-style-number' || name === 'list-level-style-bullet' || name === 'list-level-style-image')) {
          // A number style with no number format (num-format="") shows no numbers.
          list.set(Number(attributes.level ?? 1), name === 'list-level-style-number' && attributes['num-format'] !== '');
        } else if (name === 'style' && attributes.name) {
          style = { parent: attributes['parent-style-name'] };
          this.text.set(attributes.name, style);
          if (attributes['list-style-name']) this.listStyleOf.set(attributes.name, attributes['list-style-name']);
        } else if (name === 'text-properties' && style) {
          if (attributes['font-weight'] === 'bold' || Number(attributes['font-weight']) >= 600) style.bold = true;
          if (attributes['font-style'] === 'italic' || attributes['font-style'] === 'oblique') style.italic = true;
          if (attributes['text-line-through-style'] && attributes['text-line-through-style'] !== 'none') style.strike = true;
        }
      },
      close: (name) => {
        if (name === 'list-style') list = null;
        else if (name === 'style') style = null;
      },
    });
  }

  /** Whether a paragraph style is the Title style or derives from it. */
  isTitle(name: string | undefined): boolean {
    for (let depth = 0, current = name; current && depth < 10; depth++, current = this.text.get(current)?.parent) {
      if (current === 'Title') return true;
    }
    return false;
  }
}

/** Where the translator writes: the ODT reader keeps one sink, the ODP reader one per slide part. */
export interface HtmlSink {
  html: string[];
  /** List items read and not yet written (see flush). */
  items?: ListParagraph[];
}

/**
 * The translator's state for one stream of ODF text. Feed it every element of the text (open,
 * text, close) and it writes HTML into `sink`; notes go to `notes` whatever the sink.
 */
export class OdfHtmlWriter {
  sink: HtmlSink = { html: [] };
  readonly notes: Array<{ label: string; html: string }> = [];
  /** Open lists: the style each was given (nested lists without one inherit it). */
  private readonly lists: Array<{ style: string | undefined }> = [];
  /** The list item paragraph being read: where its text goes, and the sink to return to. */
  private item: { paragraph: HtmlSink; outer: HtmlSink; level: number; style: string | undefined } | null = null;
  private lastListStyle: string | undefined;
  /** Inline elements opened, with the closing tag each needs (null: nothing written). */
  private readonly inline: Array<string | null> = [];
  private skipped = 0;
  private inParagraph = false;
  /** The note being read: its label and the sink that was current before it. */
  private note: { label: string; outer: HtmlSink; body: HtmlSink; inCitation: boolean } | null = null;
  private noteCount = 0;
  private cellOpen = false;

  constructor(
    private readonly styles: OdfStyles,
    /** Writes a note's label into the text: `[^1]` placeholders or `[1]`. */
    private readonly noteLabel: (label: string) => string,
  ) {}

  /** Returns false for an element it does not handle (the caller's own, e.g. draw:page). */
  open(name: string, attributes: Record<string, string>): boolean {
    if (this.skipped > 0) {
      this.skipped++;
      return true;
    }
    const out = this.sink.html;
    // Index templates (a table of contents' "Table of Contents" title template, its entry patterns).
    if (name.endsWith('-source')) {
      this.skipped = 1;
      return true;
    }
    switch (name) {
      case 'annotation':
      case 'tracked-changes':
      case 'deletion':
      case 'desc':
      case 'title':
      case 'image':
      case 'object':
      case 'object-ole':
        this.skipped = 1;
        return true;
      case 'h':
      case 'p':
        if (this.lists.length > 0 && !this.item && !this.cellOpen) {
          let listStyle: string | undefined;
          for (let i = this.lists.length - 1; i >= 0 && listStyle === undefined; i--) listStyle = this.lists[i].style;
          // Else the paragraph's style's; else the style of the list before, which the unstyled list continues.
          listStyle ??= this.styles.listStyleOf.get(attributes['style-name'] ?? '') ?? this.lastListStyle;
          this.lastListStyle = listStyle;
          this.item = { paragraph: { html: [] }, outer: this.sink, level: this.lists.length - 1, style: listStyle };
          this.sink = this.item.paragraph;
          this.inline.push(null);
          this.inParagraph = true;
          return true;
        }
        this.flushItems();
        return this.block(name, attributes);
      case 'list':
        this.lists.push({ style: attributes['style-name'] });
        return true;
      case 'list-item':
      case 'list-header':
        return true;
      case 'span': {
        const style = this.styles.text.get(attributes['style-name'] ?? '');
        const open = `${style?.bold ? '<strong>' : ''}${style?.italic ? '<em>' : ''}${style?.strike ? '<del>' : ''}`;
        out.push(open);
        this.inline.push(open ? `${style?.strike ? '</del>' : ''}${style?.italic ? '</em>' : ''}${style?.bold ? '</strong>' : ''}` : null);
        return true;
      }
      case 'a': {
        const href = attributes.href ?? '';
        const safe = /^(https?|mailto):/i.test(href);
        out.push(safe ? `<a href="${escapeHtml(href)}">` : '');
        this.inline.push(safe ? '</a>' : null);
        return true;
      }
      case 's':
        out.push(' '.repeat(Math.min(Number(attributes.c ?? 1) || 1, 100)));
        return true;
      case 'tab':
        out.push(' ');
        return true;
      case 'line-break':
        out.push('<br>');
        return true;
      case 'table':
        this.flushItems();
        this.sink.html.push('<table>');
        return true;
      case 'table-row':
        out.push('<tr>');
        return true;
      case 'table-cell': {
        const colspan = Number(attributes['number-columns-spanned'] ?? 1);
        const rowspan = Number(attributes['number-rows-spanned'] ?? 1);
        out.push(`<td${colspan > 1 ? ` colspan="${colspan}"` : ''}${rowspan > 1 ? ` rowspan="${rowspan}"` : ''}>`);
        this.cellOpen = true;
        return true;
      }
      case 'covered-table-cell':
        this.skipped = 1;
        return true;
      case 'note': {
        this.noteCount++;
        this.note = { label: String(this.noteCount), outer: this.sink, body: { html: [] }, inCitation: false };
        return true;
      }
      case 'note-citation':
        if (this.note) this.note.inCitation = true;
        return true;
      case 'note-body':
        if (this.note) this.sink = this.note.body;
        return true;
      default:
        return false;
    }
  }

  /** Writes the list items gathered so far into the sink they were read for. */
  flushItems(): void {
    const items = this.sink.items;
    if (!items || items.length === 0) return;
    this.sink.html.push(listParagraphsHtml(items));
    items.length = 0;
  }

  private block(name: 'h' | 'p', attributes: Record<string, string>): boolean {
    const tag =
      name === 'h'
        ? `h${Math.min(Math.max(Number(attributes['outline-level'] ?? 1) || 1, 1), 6)}`
        : this.styles.isTitle(attributes['style-name']) && !this.cellOpen
          ? 'h1'
          : 'p';
    this.sink.html.push(`<${tag}>`);
    this.inline.push(`</${tag}>`);
    this.inParagraph = true;
    return true;
  }

  private finishItem(): void {
    const { paragraph, outer, level, style } = this.item!;
    this.item = null;
    this.sink = outer;
    const html = paragraph.html.join('').trim();
    if (html === '') return;
    const ordered = this.styles.lists.get(style ?? '')?.get(level + 1) ?? false;
    (outer.items ??= []).push({ html, bullet: ordered ? 'ol' : 'ul', level });
  }

  text(text: string): void {
    if (this.skipped > 0) return;
    if (this.note?.inCitation) {
      this.note.label = text.trim() || this.note.label;
      return;
    }
    // Whitespace between block elements is the file's indentation, not text.
    if (!this.inParagraph && text.trim() === '') return;
    this.sink.html.push(escapeHtml(text.replace(/\s+/g, ' ')));
  }

  close(name: string): boolean {
    if (this.skipped > 0) {
      this.skipped--;
      return true;
    }
    const out = this.sink.html;
    switch (name) {
      case 'h':
      case 'p':
      case 'span':
      case 'a': {
        const closing = this.inline.pop();
        if (closing) out.push(closing);
        if (name === 'h' || name === 'p') {
          this.inParagraph = this.inline.length > 0;
          if (this.item && !this.inParagraph) this.finishItem();
        }
        return true;
      }
      case 'list':
        this.lists.pop();
        return true;
      case 'list-item':
      case 'list-header':
        return true;
      case 'table':
        out.push('</table>');
        return true;
      case 'table-row':
        out.push('</tr>');
        return true;
      case 'table-cell':
        out.push('</td>');
        this.cellOpen = false;
        return true;
      case 'note-citation':
        if (this.note) this.note.inCitation = false;
        return true;
      case 'note':
        if (this.note) {
          const { label, outer, body } = this.note;
          this.sink = outer;
          outer.html.push(this.noteLabel(label));
          this.notes.push({ label, html: body.html.join('').replace(/<\/?(p|h\d)>/g, ' ').trim() });
          this.note = null;
        }
        return true;
      default:
        return false;
    }
  }
}

/** Runs the writer over a part, handing elements it does not know to `other`. */
export function translateOdf(xml: string, writer: OdfHtmlWriter, other: { open?(name: string, attributes: Record<string, string>): void; close?(name: string): void } = {}): void {
  readXml(xml, {
    open: (name, attributes) => {
      if (!writer.open(name, attributes)) other.open?.(name, attributes);
    },
    text: (text) => writer.text(text),
    close: (name) => {
      if (!writer.close(name)) other.close?.(name);
    },
  });
}
