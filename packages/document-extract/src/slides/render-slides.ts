import { renderBuiltHtml } from '../office/html-to-markdown.js';
import { listParagraphsHtml, type ListParagraph } from '../markup/list-html.js';
import type { OutputFormat } from '../types.js';

/** Slides read of a deck (PPTX, ODP); a deck with more is cut there (a note says so). */
export const MAX_SLIDES = 2000;

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

export type SlideParagraph = ListParagraph;

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
  for (const block of slide.blocks) parts.push(block.kind === 'text' ? listParagraphsHtml(block.paragraphs) : block.kind === 'table' ? tableHtml(block.rows) : block.html);
  if (slide.notes.length > 0) parts.push(`<p>Notes:</p>${slide.notes.map((note) => `<p>${note}</p>`).join('')}`);
  return parts.join('');
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
