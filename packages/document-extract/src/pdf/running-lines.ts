import type { TextBlock, TextLine } from './page-layout.js';

/** Share of the page's height at its top and bottom where running headers and footers sit. */
const EDGE = 0.12;
/** Lines nearest each edge that are looked at. */
const EDGE_LINES = 3;

export interface LaidOutPage {
  blocks: TextBlock[];
  /** Height of the page as viewed, in points. */
  height: number;
}

/** A line's text with its numbers as '#' (page numbers, dates and chapter numbers vary from page to page). */
const shape = (text: string) =>
  text
    .toLowerCase()
    .replace(/\b[ivxlc]+\b(?=\s*$)|^\s*[ivxlc]+\b/g, '#')
    .replace(/\d+/g, '#')
    .replace(/\s+/g, ' ')
    .trim();

/** A page number alone: "12", "- 12 -", "Page 12", "12 of 40", "xiv". */
const PAGE_NUMBER = /^(?:page\s+)?[-–—]?\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*[-–—]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;

/**
 * Running headers and footers: lines at the top or bottom edge of the pages that come back, the
 * same but for their numbers, on several pages (two at least, or three in ten pages, five being
 * enough), and page numbers standing alone at an edge of a document of two pages or more. They
 * are left out of markdown (Docling and Marker leave them out too); plain text keeps them.
 */
export function withoutRunningLines(pages: Array<LaidOutPage | null>): Array<TextBlock[] | null> {
  const text = pages.filter((p): p is LaidOutPage => p !== null);
  if (text.length < 2) return pages.map((p) => p?.blocks ?? null);
  const edgeLines = (page: LaidOutPage): Array<{ line: TextLine; edge: 'top' | 'bottom' }> => {
    const lines = page.blocks.flat().filter((l) => !l.table && Number.isFinite(l.y) && l.text);
    const byY = [...lines].sort((a, b) => a.y - b.y);
    const top = byY.slice(0, EDGE_LINES).filter((l) => l.y <= page.height * EDGE);
    const bottom = byY.slice(-EDGE_LINES).filter((l) => l.y >= page.height * (1 - EDGE));
    return [...top.map((line) => ({ line, edge: 'top' as const })), ...bottom.map((line) => ({ line, edge: 'bottom' as const }))];
  };
  const seen = new Map<string, number>();
  const candidates = text.map(edgeLines);
  for (const page of candidates) {
    for (const key of new Set(page.map(({ line, edge }) => `${edge}:${shape(line.text)}`))) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const enough = Math.max(2, Math.min(5, Math.ceil(text.length * 0.3)));
  const running = new Set<TextLine>();
  for (const page of candidates) {
    for (const { line, edge } of page) {
      if (PAGE_NUMBER.test(line.text.trim()) || (seen.get(`${edge}:${shape(line.text)}`) ?? 0) >= enough) running.add(line);
    }
  }
  return pages.map((page) => page && page.blocks.map((block) => block.filter((line) => !running.has(line))).filter((block) => block.length > 0));
}
