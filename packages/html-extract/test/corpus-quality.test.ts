import { expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { CORPUS_PAGE_URL, htmlToText, realSitePages } from '../../../tests/support/web-corpus.js';
import { wordF1 } from '../../../tests/support/word-f1.js';
import { linkAndImageProblems, scriptOrStyleLeaks } from '../../../tests/support/extraction-checks.js';

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

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

    leaks.push(...scriptOrStyleLeaks(page.source, out).map((probe) => `${page.folder}: ${probe}`));
    expect(linkAndImageProblems(out.links, out.images).map((problem) => `${page.folder}: ${problem}`)).toEqual([]);
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
