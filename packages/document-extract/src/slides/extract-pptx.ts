import { DocumentError } from '../errors.js';
import { escapeHtml, readXml, relationshipId } from '../markup/xml-stream.js';
import { readRelationships } from '../office/relationships.js';
import { missingPart, openZipPackage, type ZipPackage } from '../office/zip-package.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { MAX_SLIDES, renderSlides, type Slide, type SlideBlock, type SlideParagraph, type SlideTableCell } from './render-slides.js';

const PRESENTATION = 'ppt/presentation.xml';

/**
 * PowerPoint 2007+ (.pptx): each slide one page, in the presentation's order (p:sldIdLst): its
 * title as a heading, then its shapes' text in the slide's own order (body placeholders as
 * lists, as PowerPoint shows them, unless a paragraph turns its bullet off), tables (merged
 * cells spread), and the speaker notes last. Pictures, charts and comments are left out (as
 * comments are for Word: SPEC).
 */
export async function extractPptx(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const pkg = await openZipPackage(bytes, 'the .pptx');
  const presentation = await pkg.text(PRESENTATION);
  if (presentation === null) throw missingPart('the .pptx', PRESENTATION);
  const relationships = await readRelationships(pkg.zip, PRESENTATION);
  const slideIds: string[] = [];
  readXml(presentation, {
    open(name, attributes) {
      const id = name === 'sldId' ? relationshipId(attributes) : undefined;
      if (id) slideIds.push(id);
    },
  });
  const slideParts = slideIds.map((id) => relationships.get(id)).filter((r) => r?.type === 'slide').map((r) => r!.target);
  const notes: string[] = [];
  if (slideParts.length > MAX_SLIDES) notes.push(`the deck has ${slideParts.length} slides; the first ${MAX_SLIDES} are read`);

  const slides: Slide[] = [];
  for (const part of slideParts.slice(0, MAX_SLIDES)) {
    opts.signal?.throwIfAborted();
    const xml = await pkg.text(part);
    if (xml === null) throw missingPart('the .pptx', part);
    const slide = readSlide(xml);
    slide.notes = await readNotes(pkg, part);
    slides.push(slide);
    opts.onProgress?.(slides.length, Math.min(slideParts.length, MAX_SLIDES));
  }
  if (slides.length === 0 && slideIds.length > 0) throw new DocumentError('400-001', 'The document is damaged', ["the .pptx's slide list names no slide part"]);
  return { kind: 'pptx', pages: renderSlides(slides, opts.output), notes, ocrPages: 0 };
}

/** Placeholder types whose text is the slide's title. */
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);
/** Placeholder types that hold no text of the slide (date, footer and number fields repeat on every slide; pictures). */
const SKIPPED_PLACEHOLDERS = new Set(['dt', 'ftr', 'sldNum', 'pic', 'sldImg', 'hdr']);

/**
 * One slide's shapes, read in document order. A shape is a p:sp (text), a p:graphicFrame with an
 * a:tbl (table); groups are walked into. Alternate content is read from its mc:Choice only.
 */
function readSlide(xml: string): Slide {
  const slide: Slide = { title: '', blocks: [], notes: [] };
  let shape: { placeholder: string | null; paragraphs: SlideParagraph[] } | null = null;
  let paragraph: (SlideParagraph & { runs: string[] }) | null = null;
  let inText = false;
  let table: SlideTableCell[][] | null = null;
  let cell: SlideTableCell | null = null;
  let skipped = 0;

  const finishParagraph = () => {
    if (!paragraph) return;
    const html = paragraph.runs.join('').replace(/^(\s|<br>)+|(\s|<br>)+$/g, '');
    if (html !== '') {
      if (cell) cell.html.push(html);
      else shape?.paragraphs.push({ html, bullet: paragraph.bullet, level: paragraph.level });
    }
    paragraph = null;
  };

  readXml(xml, {
    open(name, attributes) {
      if (skipped > 0 || name === 'Fallback' || name === 'pic') {
        skipped++;
        return;
      }
      switch (name) {
        case 'sp':
          shape = { placeholder: null, paragraphs: [] };
          break;
        case 'ph':
          // A placeholder without a type is a content (body) placeholder.
          if (shape) shape.placeholder = attributes.type ?? 'body';
          break;
        case 'tbl':
          table = [];
          break;
        case 'tr':
          table?.push([]);
          break;
        case 'tc':
          cell = {
            html: [],
            colspan: Number(attributes.gridSpan ?? 1) || 1,
            rowspan: Number(attributes.rowSpan ?? 1) || 1,
            covered: attributes.hMerge === '1' || attributes.vMerge === '1' || attributes.hMerge === 'true' || attributes.vMerge === 'true',
          };
          break;
        case 'p':
          paragraph = { html: '', bullet: defaultBullet(shape?.placeholder ?? null, cell !== null), level: 0, runs: [] };
          break;
        case 'pPr':
          if (paragraph) paragraph.level = Math.min(Number(attributes.lvl ?? 0) || 0, 8);
          break;
        case 'buNone':
          if (paragraph) paragraph.bullet = null;
          break;
        case 'buChar':
          if (paragraph && !cell) paragraph.bullet = 'ul';
          break;
        case 'buAutoNum':
          if (paragraph && !cell) paragraph.bullet = 'ol';
          break;
        case 't':
          inText = paragraph !== null;
          break;
        case 'br':
          paragraph?.runs.push('<br>');
          break;
      }
    },
    text(text) {
      if (inText && paragraph && skipped === 0) paragraph.runs.push(escapeHtml(text));
    },
    close(name) {
      if (skipped > 0) {
        skipped--;
        return;
      }
      switch (name) {
        case 't':
          inText = false;
          break;
        case 'p':
          finishParagraph();
          break;
        case 'tc':
          if (cell && table) table[table.length - 1]?.push(cell);
          cell = null;
          break;
        case 'tbl':
          if (table) slide.blocks.push({ kind: 'table', rows: table });
          table = null;
          break;
        case 'sp':
          if (shape) addShape(slide, shape.placeholder, shape.paragraphs);
          shape = null;
          break;
      }
    },
  });
  return slide;
}

function defaultBullet(placeholder: string | null, inTable: boolean): SlideParagraph['bullet'] {
  // Body placeholders inherit bullets from the slide master; text boxes and table cells have none unless set.
  return !inTable && (placeholder === 'body' || placeholder === 'obj') ? 'ul' : null;
}

function addShape(slide: Slide, placeholder: string | null, paragraphs: SlideParagraph[]): void {
  if (paragraphs.length === 0 || (placeholder && SKIPPED_PLACEHOLDERS.has(placeholder))) return;
  if (placeholder && TITLE_PLACEHOLDERS.has(placeholder) && slide.title === '') {
    slide.title = paragraphs.map((p) => p.html).join(' ');
    return;
  }
  const block: SlideBlock = { kind: 'text', paragraphs };
  slide.blocks.push(block);
}

/** The speaker notes: the notes page's body placeholder (its slide image and number are not text). */
async function readNotes(pkg: ZipPackage, slidePart: string): Promise<string[]> {
  const notesPart = [...(await readRelationships(pkg.zip, slidePart)).values()].find((r) => r.type === 'notesSlide')?.target;
  const xml = notesPart ? await pkg.text(notesPart) : null;
  if (!xml) return [];
  const notes = readSlide(xml);
  return notes.blocks.flatMap((block) => (block.kind === 'text' ? block.paragraphs.map((p) => p.html) : []));
}
