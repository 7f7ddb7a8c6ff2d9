import { renderBuiltHtml } from '../office/html-to-markdown.js';
import type { OutputFormat } from '../types.js';

/** A slide as the slide readers (PPTX, ODP) find it; text is HTML-escaped inline markup. */
export interface Slide {
  title: string;
  blocks: SlideBlock[];
  /** Speaker notes, one entry a paragraph. */
  notes: string[];
}

export type SlideBlock =
  | { kind: 'text'; paragraphs: SlideParagraph[] }
  | { kind: 'table'; rows: SlideTableCell[][] }
  /** HTML a reader built itself (the OpenDocument translator's). */
  | { kind: 'html'; html: string };

export interface SlideParagraph {
  html: string;
  /** A list item of a bulleted (ul) or numbered (ol) list, or a paragraph (null). */
  bullet: 'ul' | 'ol' | null;
  /** Nesting depth of a list item, 0 for the outermost. */
  level: number;
}

export interface SlideTableCell {
  /** The cell's paragraphs. */
  html: string[];
  colspan: number;
  rowspan: number;
  /** Covered by a merged cell before it (PPTX writes those cells, with hMerge/vMerge). */
  covered: boolean;
}

/** Each slide one page: the title as a heading, the blocks in order, then "Notes:" and the speaker notes. */
export function renderSlides(slides: Slide[], output: OutputFormat): string[] {
  return slides.map((slide) => renderBuiltHtml(slideHtml(slide), output));
}

function slideHtml(slide: Slide): string {
  const parts: string[] = [];
  if (slide.title !== '') parts.push(`<h1>${slide.title}</h1>`);
  for (const block of slide.blocks) parts.push(block.kind === 'text' ? paragraphsHtml(block.paragraphs) : block.kind === 'table' ? tableHtml(block.rows) : block.html);
  if (slide.notes.length > 0) parts.push(`<p>Notes:</p>${slide.notes.map((note) => `<p>${note}</p>`).join('')}`);
  return parts.join('');
}

/** Paragraphs and list items; consecutive items become one list, nested by level. */
function paragraphsHtml(paragraphs: SlideParagraph[]): string {
  let html = '';
  const open: Array<'ul' | 'ol'> = [];
  const closeTo = (depth: number) => {
    while (open.length > depth) html += `</li></${open.pop()}>`;
  };
  for (const paragraph of paragraphs) {
    if (paragraph.bullet === null) {
      closeTo(0);
      html += `<p>${paragraph.html}</p>`;
      continue;
    }
    // One level deeper than the open lists at most; a new kind of list at the same depth starts anew.
    const depth = Math.min(paragraph.level, open.length) + 1;
    closeTo(depth);
    if (open.length === depth && open[depth - 1] !== paragraph.bullet) closeTo(depth - 1);
    if (open.length === depth) {
      html += `</li><li>${paragraph.html}`;
    } else {
      html += `<${paragraph.bullet}><li>${paragraph.html}`;
      open.push(paragraph.bullet);
    }
  }
  closeTo(0);
  return html;
}

function tableHtml(rows: SlideTableCell[][]): string {
  const body = rows
    .map((cells) => {
      const html = cells
        .filter((cell) => !cell.covered)
        .map((cell) => {
          const spans = `${cell.colspan > 1 ? ` colspan="${cell.colspan}"` : ''}${cell.rowspan > 1 ? ` rowspan="${cell.rowspan}"` : ''}`;
          return `<td${spans}>${cell.html.map((p) => `<p>${p}</p>`).join('')}</td>`;
        })
        .join('');
      return `<tr>${html}</tr>`;
    })
    .join('');
  return `<table>${body}</table>`;
}
