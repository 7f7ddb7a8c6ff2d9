/** The page-break line of the corpus references and of the parser's output. */
const PAGE_BREAK_LINE = /^=== Page Break ===$/gm;

/**
 * Lowercased word tokens (letters and digits of any script). Page-break marker lines are not
 * words of the document: counting them would reward (or punish) pagination in a text measure.
 */
export function words(text: string): string[] {
  return text.replace(PAGE_BREAK_LINE, ' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A document's pages, split at the page-break lines. */
export function pagesOf(text: string): string[] {
  return text.split(/\n*^=== Page Break ===$\n*/m);
}

/** Multiset overlap of two word lists: how many of `a`'s words `b` has (each occurrence once). */
export function overlapCount(a: string[], b: string[]): number {
  const counts = new Map<string, number>();
  for (const w of b) counts.set(w, (counts.get(w) ?? 0) + 1);
  let overlap = 0;
  for (const w of a) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      overlap++;
      counts.set(w, n - 1);
    }
  }
  return overlap;
}

/**
 * Share of the reference's words the candidate has (multiset): what an extractor that drops
 * boilerplate the reference kept may still be held to, since dropping never costs recall of the
 * text both keep.
 */
export function wordRecall(candidate: string, reference: string): number {
  const b = words(reference);
  if (!b.length) return 1;
  return overlapCount(b, words(candidate)) / b.length;
}

/** Word-level F1: multiset overlap of tokens, the measure the corpora's READMEs recommend. */
export function wordF1(candidate: string, reference: string): number {
  const a = words(candidate);
  const b = words(reference);
  if (!a.length || !b.length) return a.length === b.length ? 1 : 0;
  const overlap = overlapCount(a, b);
  const precision = overlap / a.length;
  const recall = overlap / b.length;
  return precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
}
