import { DocumentError } from '../errors.js';
import type { UprightText } from '../ocr/recognize-upright.js';
import type { ExtractedDocument, ExtractOptions } from '../types.js';
import { damagedPdfError, openPdf } from './open-pdf.js';
import { readScanImage, recognizeRendered, renderPage } from './page-ocr.js';
import { layoutPage, type TextBlock } from './page-layout.js';
import { newDocumentFonts, pageStructure } from './page-structure.js';
import { withoutRunningLines } from './running-lines.js';
import { joinTablesAcrossPages } from './table-cells.js';
import { choosePageReading, documentTraits, fetchPage, type FetchedPage } from './read-page.js';
import { headingLevels, markdownPage, plainBlock } from './render-text.js';
import { PDF_LIMITS } from './stream-budget.js';

/**
 * Pages whose text is requested ahead of the one being laid out. pdf.js parses on this thread
 * but waits on asynchronous inflation; overlapping pages fills those waits (~1.3x faster).
 */
const PREFETCH = 4;
/**
 * Rendered pages waiting for or in OCR at once: one per OCR worker, plus one so that rendering
 * the next page overlaps reading the others. Each holds its grey raster (8.7 MB for A4).
 */
const ocrInFlight = (opts: ExtractOptions) => Math.max(2, (opts.ocr?.parallelism ?? 1) + 1);

type PageResult = { kind: 'text'; blocks: TextBlock[]; height: number } | { kind: 'ocr'; reading: Promise<UprightText>; reason: string };

const aborted = () => new DocumentError('500-001', 'Processing error', ['the time budget ran out']);

/**
 * PDF to text with pdf.js (legacy build, eval disabled): lines rebuilt from glyph positions in
 * reading order (columns apart), paragraphs from line gaps, filled form fields in place, pages
 * without a usable text layer rendered at 300 DPI and OCR'd upright (images in text pages are
 * not), markdown headings from the structure tree or font sizes. Every page is cleaned up and
 * the document always destroyed; the signal is checked between pages. Keeps no state between
 * calls, so it runs as well inside a worker thread.
 */
export async function extractPdf(bytes: Uint8Array, opts: ExtractOptions): Promise<ExtractedDocument> {
  const pdf = await openPdf(bytes);
  try {
    const total = pdf.doc.numPages;
    const traits = await documentTraits(pdf, bytes);
    const notes: string[] = [];
    const results: PageResult[] = [];
    const fetches = new Map<number, Promise<FetchedPage>>();
    const inFlight = new Set<Promise<void>>();
    let done = 0;
    const finished = () => opts.onProgress?.(++done, total);
    // The stream budget counts each stream once; one stream drawn by many pages (or a form drawn
    // many times) is only seen here, as the text pdf.js actually produced.
    let textItems = 0;
    // Page number by page object. A page object has one parent, so a page tree listing one twice
    // is built to claim pages that are not there: 600 KB listing one page 100,000 times kept a
    // parse thread busy until the job's 600 s budget ran out (issue 24). Refused at the repeat.
    const pageOfObject = new Map<string, number>();
    const fonts = newDocumentFonts();

    for (let n = 1; n <= total; n++) {
      if (opts.signal?.aborted) throw aborted();
      for (let k = n; k <= Math.min(total, n + PREFETCH); k++) {
        if (fetches.has(k) || k < n) continue;
        const fetching = fetchPage(pdf, traits, k);
        // Settled when the document is destroyed after a failure; nothing waits on it then.
        fetching.catch(() => undefined);
        fetches.set(k, fetching);
      }
      const fetched = await fetches.get(n)!;
      fetches.delete(n);
      const object = `${fetched.page.ref?.num} ${fetched.page.ref?.gen} R`;
      const first = fetched.page.ref ? pageOfObject.get(object) : undefined;
      if (first !== undefined) {
        fetched.page.cleanup();
        throw new DocumentError('400-001', 'Invalid PDF file', [`the PDF's page tree lists the same page more than once (page ${n} is page ${first} again, of ${total.toLocaleString('en-US')} claimed)`]);
      }
      pageOfObject.set(object, n);
      textItems += fetched.textItems;
      if (textItems > PDF_LIMITS.documentTextOperators) {
        fetched.page.cleanup();
        throw new DocumentError('400-001', 'The document exceeds a processing limit', [
          `the PDF exceeds a processing limit: its pages draw more than ${PDF_LIMITS.documentTextOperators.toLocaleString('en-US')} pieces of text (PDF bomb?)`,
        ]);
      }
      let result: PageResult;
      try {
        const reading = await choosePageReading(fetched, traits, pdf.pdfjs);
        if (reading.ocr && opts.ocr) {
          // Rendered (or its scan taken) while the page is loaded; read while the next pages are.
          const pixels = (reading.scan && (await readScanImage(fetched.page, reading.scan, pdf.pdfjs))) || (await renderPage(fetched.page));
          result = { kind: 'ocr', reading: recognizeRendered(pixels, opts.ocr, { upright: reading.upright }), reason: reading.ocr };
        } else {
          if (reading.ocr) notes.push(`page ${n}: needs OCR (${reading.ocr}), which is not available; its text layer was used`);
          else if (reading.note) notes.push(`page ${n}: ${reading.note}`);
          // Markdown's structure (tables, fonts for headings); plain text is read from the text alone.
          const { runs, tables } = opts.output === 'markdown' ? await pageStructure(fetched.page, fetched.runs, pdf.pdfjs, fonts) : { runs: fetched.runs, tables: [] };
          result = { kind: 'text', blocks: layoutPage(runs, tables), height: fetched.page.getViewport({ scale: 1 }).height };
        }
      } finally {
        fetched.page.cleanup();
      }
      results.push(result);
      if (result.kind === 'text') {
        finished();
        continue;
      }
      // Failures surface below, in page order; this only paces the rendering.
      const settled = result.reading.then(finished, () => undefined);
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      while (inFlight.size >= ocrInFlight(opts)) await Promise.race(inFlight);
    }

    // Markdown leaves running headers, footers and page numbers out, and joins tables split by a page break.
    const laidOut = opts.output === 'markdown' ? joinTablesAcrossPages(withoutRunningLines(results.map((r) => (r.kind === 'text' ? r : null)))) : results.map((r) => (r.kind === 'text' ? r.blocks : null));
    const texts: Array<TextBlock[] | string> = [];
    for (const [i, r] of results.entries()) {
      if (r.kind === 'text') {
        texts.push(laidOut[i]!);
        continue;
      }
      if (opts.signal?.aborted) throw aborted();
      const reading = await r.reading;
      texts.push(reading.text.replace(/[ \t]+$/gm, '').trim());
      const tries = reading.attempts.map((a) => `${a.rotation}° ${a.confidence}%`).join(', ');
      notes.push(`page ${i + 1}: OCR (${r.reason}) at ${tries}${reading.attempts.length > 1 ? `; kept ${reading.rotation}°` : ''}`);
    }
    if (notes.length > 0 && texts.every((t) => typeof t !== 'string' && t.length === 0)) {
      throw new DocumentError('500-001', 'Processing error', ['the PDF has no text layer and OCR is not available']);
    }
    const level = headingLevels(texts.filter((t): t is TextBlock[] => typeof t !== 'string'));
    const pages = texts.map((t) =>
      typeof t === 'string' ? t : opts.output === 'markdown' ? markdownPage(t, level) : t.map(plainBlock).join('\n\n'),
    );
    return { kind: 'pdf', pages, notes, ocrPages: results.filter((r) => r.kind === 'ocr').length };
  } catch (error) {
    throw damagedPdfError(error) ?? error;
  } finally {
    // OCR readings still running after a failure hold their own pixels, not the document.
    await pdf.destroy();
  }
}
