import { expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { CORPUS_PAGE_URL, htmlToText, realSitePages } from '../../../tests/support/web-corpus.js';
import { wordRecall } from '../../../tests/support/word-f1.js';
import { linkAndImageProblems, scriptOrStyleLeaks } from '../../../tests/support/extraction-checks.js';
import { reportFigures } from '../../../tests/support/figures.js';

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

/**
 * Every real-site page of the developer corpus: titles as Readability's metadata reports them,
 * the text of expected.html kept (word recall: expected.html is Readability's own output, so
 * boilerplate it kept, such as comments, may go, article text may not), never any script or
 * style text, links absolute and typed, markdown present. The figures are printed so they can be
 * quoted. (What a human calls the main text is tested on web-annotated: extraction-quality-api.)
 */
it('extracts the corpus pages with the required quality', () => {
  const pages = realSitePages();
  let titleMatches = 0;
  let recallSum = 0;
  const weak: string[] = [];
  const leaks: string[] = [];
  for (const page of pages) {
    const out = extractPage(page.source, CORPUS_PAGE_URL, { markdown: true });
    if (norm(out.meta.title) === norm(page.expectedMeta.title)) titleMatches++;
    const recall = wordRecall(out.text, htmlToText(page.expectedHtml));
    recallSum += recall;
    if (recall < 0.9) weak.push(`${page.folder} ${recall.toFixed(3)}`);

    leaks.push(...scriptOrStyleLeaks(page.source, out).map((probe) => `${page.folder}: ${probe}`));
    expect(linkAndImageProblems(out.links, out.images).map((problem) => `${page.folder}: ${problem}`)).toEqual([]);
    expect(out.markdown!.trim().length).toBeGreaterThan(0);
    expect(out.text.trim().length).toBeGreaterThan(0);
  }
  const titleShare = titleMatches / pages.length;
  const meanRecall = recallSum / pages.length;
  reportFigures(
    `corpus: ${pages.length} real-site pages; title match ${titleMatches}/${pages.length} (${(titleShare * 100).toFixed(1)} %); ` +
      `mean word recall of expected.html ${meanRecall.toFixed(4)}; pages below 0.9: ${weak.join(', ') || 'none'}; script/style leaks: ${leaks.length}`,
  );
  expect(pages.length).toBeGreaterThan(80);
  expect(leaks).toEqual([]);
  expect(titleShare).toBeGreaterThanOrEqual(0.9);
  expect(meanRecall).toBeGreaterThanOrEqual(0.97); // issue 35: recall of Readability's text first
}, 120_000);
