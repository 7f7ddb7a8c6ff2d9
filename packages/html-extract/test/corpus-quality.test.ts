import { expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { CORPUS_PAGE_URL, htmlToText, realSitePages } from '../../../tests/support/web-corpus.js';
import { wordF1 } from '../../../tests/support/word-f1.js';

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/** Script and style bodies of a page long enough to be recognisable (JSON-LD is metadata, not script). */
function scriptAndStyleTexts(html: string): string[] {
  return [...html.matchAll(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi)]
    .filter((m) => !/ld\+json/i.test(m[2]))
    .map((m) => norm(m[3]))
    .filter((t) => t.length > 40);
}

/**
 * Every real-site page of the developer corpus: titles as Readability's metadata reports them,
 * main text close to expected.html, never any script or style text, links absolute and typed,
 * markdown present. The figures are printed so they can be quoted.
 */
it('extracts the corpus pages with the required quality', () => {
  const pages = realSitePages();
  let titleMatches = 0;
  let f1Sum = 0;
  const weak: string[] = [];
  const leaks: string[] = [];
  for (const page of pages) {
    const out = extractPage(page.source, CORPUS_PAGE_URL, { markdown: true });
    if (norm(out.meta.title) === norm(page.expectedMeta.title)) titleMatches++;
    const f1 = wordF1(out.text, htmlToText(page.expectedHtml));
    f1Sum += f1;
    if (f1 < 0.9) weak.push(`${page.folder} ${f1.toFixed(3)}`);

    const text = norm(out.text);
    // Link and image addresses are not text: a script may well mention the same URL.
    const markdown = norm(out.markdown?.replace(/\]\([^)]*\)/g, ']()'));
    // Scripts often carry the article itself as JSON state: a probe that is also visible page text is no leak.
    let visible: string | undefined;
    const isVisible = (probe: string) => (visible ??= norm(htmlToText(page.source.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')))).includes(probe);
    for (const code of scriptAndStyleTexts(page.source)) {
      // Probe the start, the middle and the end of each script or style body.
      const middle = Math.floor(code.length / 2);
      for (const probe of [code.slice(0, 40), code.slice(middle, middle + 40), code.slice(-40)]) {
        if ((text.includes(probe) || markdown.includes(probe)) && !isVisible(probe)) leaks.push(`${page.folder}: ${probe}`);
      }
    }
    for (const link of out.links) {
      expect(['internal', 'external', 'mailto', 'tel']).toContain(link.type);
      if (link.type === 'internal' || link.type === 'external') expect(link.url).toMatch(/^https?:\/\/[^/]/);
      if (link.type === 'mailto') expect(link.url).toMatch(/^mailto:/i);
      if (link.type === 'tel') expect(link.url).toMatch(/^tel:/i);
    }
    for (const image of out.images) expect(image.url).toMatch(/^(https?:\/\/[^/]|data:image\/)/);
    expect(out.markdown!.trim().length).toBeGreaterThan(0);
    expect(out.text.trim().length).toBeGreaterThan(0);
  }
  const titleShare = titleMatches / pages.length;
  const meanF1 = f1Sum / pages.length;
  console.log(
    `corpus: ${pages.length} real-site pages; title match ${titleMatches}/${pages.length} (${(titleShare * 100).toFixed(1)} %); ` +
      `mean word F1 ${meanF1.toFixed(4)}; pages below 0.9: ${weak.join(', ') || 'none'}; script/style leaks: ${leaks.length}`,
  );
  expect(pages.length).toBeGreaterThan(80);
  expect(leaks).toEqual([]);
  expect(titleShare).toBeGreaterThanOrEqual(0.9);
  expect(meanF1).toBeGreaterThanOrEqual(0.9);
}, 120_000);
