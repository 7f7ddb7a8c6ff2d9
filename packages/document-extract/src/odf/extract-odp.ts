import { MAX_SLIDES, renderSlides, type Slide } from '../slides/render-slides.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { type HtmlSink, OdfHtmlWriter, translateOdf } from './odf-html.js';
import { openOdfPackage, readOdfStyles } from './odf-package.js';


/**
 * OpenDocument presentations (.odp): each draw:page one page, like a .pptx slide: the frame of
 * class "title" as its heading, the other frames' text, lists and tables in order (odf-html.ts),
 * and the speaker notes (presentation:notes) last.
 */
export async function extractOdp(bytes: Buffer, opts: ExtractOptions): Promise<ExtractedDocument> {
  opts.signal?.throwIfAborted();
  const { pkg, content } = await openOdfPackage(bytes, 'the .odp');
  const styles = await readOdfStyles(pkg, content);

  const writer = new OdfHtmlWriter(styles, (label) => `[${label}]`);
  const slides: Array<{ title: HtmlSink; body: HtmlSink; notes: HtmlSink }> = [];
  const outside: HtmlSink = { html: [] };
  /** Frames open, and whether each switched the sink (so that its close switches back). */
  const frames: HtmlSink[] = [];
  let inNotes = false;
  let pagesCut = 0;
  translateOdf(content, writer, {
    open(name, attributes) {
      const slide = slides[slides.length - 1];
      if (name === 'page' || name === 'notes' || name === 'frame') writer.flushItems();
      if (name === 'page' && !inNotes) {
        if (slides.length >= MAX_SLIDES) {
          pagesCut++;
          writer.sink = outside;
          return;
        }
        slides.push({ title: { html: [] }, body: { html: [] }, notes: { html: [] } });
        writer.sink = slides[slides.length - 1].body;
      } else if (name === 'notes' && slide) {
        inNotes = true;
        writer.sink = slide.notes;
      } else if (name === 'frame' && slide) {
        frames.push(writer.sink);
        if (!inNotes && attributes.class === 'title' && slide.title.html.length === 0) writer.sink = slide.title;
      }
    },
    close(name) {
      const slide = slides[slides.length - 1];
      if (name === 'frame' || name === 'notes' || name === 'page') writer.flushItems();
      if (name === 'frame' && frames.length > 0) writer.sink = frames.pop()!;
      else if (name === 'notes' && slide) {
        inNotes = false;
        writer.sink = slide.body;
      }
    },
  });

  const deck: Slide[] = slides.map(({ title, body, notes }) => ({
    title: inlineText(title.html.join('')),
    blocks: [{ kind: 'html', html: body.html.join('') }],
    notes: notes.html.length > 0 && inlineText(notes.html.join('')) !== '' ? [notes.html.join('')] : [],
  }));
  opts.onProgress?.(deck.length, deck.length);
  const notes = pagesCut > 0 ? [`the deck has ${slides.length + pagesCut} slides; the first ${MAX_SLIDES} are read`] : [];
  return { kind: 'odp', pages: deck.length > 0 ? renderSlides(deck, opts.output) : [''], notes, ocrPages: 0 };
}

/** A title's paragraphs as one line of inline HTML. */
function inlineText(html: string): string {
  return html.replace(/<\/?(p|h\d|ul|ol|li)>/g, ' ').replace(/<br>/g, ' ').replace(/\s+/g, ' ').trim();
}
