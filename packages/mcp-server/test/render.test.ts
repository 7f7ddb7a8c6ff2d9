import { describe, expect, it } from '@jest/globals';
import type { CrawlPage, CrawlStatus, ScrapeCompletedStatus } from '@gleaner/client';
import { cutText, PAGE_BREAK, pageNumbers, renderCrawl, renderDocument, renderMap, renderPage, renderSelection } from '../src/render.js';
import { AnswerError } from '../src/tool-errors.js';

describe('cutText', () => {
  it('returns short text whole, with nothing to read on', () => {
    expect(cutText('short text', 0, 100)).toEqual({ text: 'short text', next: null, total: 10 });
  });

  it('ends on a line or word boundary near the cut, and the next read starts exactly there', () => {
    const text = Array.from({ length: 50 }, (_, i) => `word${i}`).join(' ');
    const first = cutText(text, 0, 100);
    expect(first.text.length).toBeLessThanOrEqual(100);
    expect(first.text.endsWith(' ')).toBe(true);
    const second = cutText(text, first.next!, 100);
    expect(second.text.startsWith('word')).toBe(true);
    let joined = '';
    for (let at: number | null = 0; at !== null; ) {
      const part = cutText(text, at, 100);
      joined += part.text;
      at = part.next;
    }
    expect(joined).toBe(text);
  });

  it('cuts at the limit itself when no boundary is near (one long word)', () => {
    const cut = cutText('x'.repeat(500), 0, 100);
    expect(cut).toEqual({ text: 'x'.repeat(100), next: 100, total: 500 });
  });
});

describe('pageNumbers', () => {
  it('reads single pages and ranges, in order, without duplicates, ignoring pages past the end', () => {
    expect(pageNumbers('3', 10)).toEqual([3]);
    expect(pageNumbers('7, 1-3 ,2', 10)).toEqual([1, 2, 3, 7]);
    expect(pageNumbers('9-12', 10)).toEqual([9, 10]);
    expect(pageNumbers('0-1', 10)).toEqual([1]);
    expect(pageNumbers('11', 10)).toEqual([]);
  });
});

describe('renderDocument', () => {
  const doc = { requestId: 'id-1', url: 'http://files/report.pdf', type: 'pdf', data: ['one', 'two', 'three'].join(PAGE_BREAK) };

  it("labels each page in place of Gleaner's page-break line", () => {
    expect(renderDocument(doc, { max_length: 1000 })).toBe(
      'Document: http://files/report.pdf\nType: pdf, 3 pages\nRequest ID: id-1\n\n=== Page 1 of 3 ===\n\none\n\n=== Page 2 of 3 ===\n\ntwo\n\n=== Page 3 of 3 ===\n\nthree',
    );
  });

  it('refuses pages that name no page of the document, saying how many it has', () => {
    expect(() => renderDocument(doc, { max_length: 1000, pages: '5-7' })).toThrow(new AnswerError('The document has 3 pages: pages "5-7" names none of them (pages are numbered 1 to 3). Request ID: id-1.'));
    expect(() => renderDocument({ ...doc, data: 'only page' }, { max_length: 1000, pages: '2' })).toThrow(/^The document has 1 page: pages "2" names none of them/);
  });

  it('cut with pages, says how get_result reads on in the same pages, even for a one-page document', () => {
    const one = renderDocument({ ...doc, data: 'word '.repeat(400) }, { max_length: 500, pages: '1' });
    expect(one.length).toBeLessThanOrEqual(500);
    expect(one).toMatch(/\[Cut at character \d+ of 2,000\. To read on, call get_result with request_id "id-1", kind "parse_document", pages "1" and start_index \d+\.\]$/);
    expect(one).not.toContain('fewer pages');
  });

  it('names an uploaded document by its file name, and leaves the line out when nothing names it', () => {
    expect(renderDocument({ requestId: 'id-2', fileName: 'minutes.docx', type: 'docx', data: 'x' }, { max_length: 1000 })).toMatch(/^Document: minutes\.docx\n/);
    expect(renderDocument({ requestId: 'id-2', type: 'docx', data: 'x' }, { max_length: 1000 })).toMatch(/^Type: docx, 1 page\n/);
  });

  it('a one-page document is its text, without a label', () => {
    expect(renderDocument({ ...doc, type: 'txt', data: 'only page' }, { max_length: 1000 })).toBe('Document: http://files/report.pdf\nType: txt, 1 page\nRequest ID: id-1\n\nonly page');
  });
});

describe('max_length bounds the whole answer', () => {
  const links = Array.from({ length: 300 }, (_, i) => ({ text: `Link number ${i} to somewhere`, url: `https://example.com/section/${i}/a-rather-long-path`, type: 'internal' as const }));
  const images = Array.from({ length: 120 }, (_, i) => ({ url: `https://cdn.example.com/images/${i}.jpg`, alt: `Picture ${i}` }));
  const page: ScrapeCompletedStatus = {
    request_id: '0190a1b2-0000-7000-8000-00000000000a',
    url: 'https://example.com/',
    status: 'completed',
    timestamp: 1,
    content: { text: 'plain', markdown: 'Body line. '.repeat(3000), meta: { title: 'Big page', description: 'A page with much of everything.' }, links, images },
  };
  const show = { format: 'markdown' as const, include_links: true, include_images: true };

  it.each([1000, 5000, 20_000])('max_length %i: text, links and images together stay within it', (max) => {
    const answer = renderPage(page, { ...show, max_length: max });
    expect(answer.length).toBeLessThanOrEqual(max);
    expect(answer).toMatch(/^# Big page\nURL: https:\/\/example\.com\/\nRequest ID: /);
    expect(answer).toContain('## Links (300)');
    expect(answer).toContain('## Images (120)');
    expect(answer).toMatch(/\(\d+ more not listed: a larger max_length shows more\)/);
    expect(answer).toMatch(/\[Cut at character [\d,]+ of 33,000\. To read on, call get_result/);
  });

  it('gives the lists what a short text leaves', () => {
    const short = renderPage({ ...page, content: { ...page.content, markdown: 'Short body.' } }, { ...show, max_length: 40_000 });
    expect(short.length).toBeLessThanOrEqual(40_000);
    expect(short).toContain('Short body.');
    expect(short).not.toContain('[Cut at');
    // 200 links are listed at most whatever the room; every image fits.
    expect(short).toContain('(100 more not listed)');
    expect(short).toContain('- ![Picture 119](https://cdn.example.com/images/119.jpg)');
  });

  it('bounds extracted JSON and selected elements too', () => {
    const llm = renderPage({ ...page, llm_output: { items: Array.from({ length: 500 }, (_, i) => `item ${i}`) } }, { ...show, include_links: false, include_images: false, max_length: 1000 });
    expect(llm.length).toBeLessThanOrEqual(1000);
    expect(llm).toMatch(/```json\n[\s\S]*\[Cut at character [\d,]+ of [\d,]+\. To read on, ask again with a larger max_length[^\]]*\]\n```$/);
    const html = '<p>matched element</p>\n'.repeat(500);
    const selected = renderSelection('https://example.com/', 'p', { request_id: 'id-3', scraped_content: { html, text: 'matched element\n'.repeat(500) } }, { include_html: true, max_length: 2000 });
    expect(selected.length).toBeLessThanOrEqual(2000);
    expect(selected).toContain('## HTML of the matched elements');
  });
});

describe('renderCrawl and renderMap', () => {
  const id = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
  const counts = { discovered: 9, queued: 0, processing: 0, completed: 7, failed: 1, skipped: 1, skipped_by: { robots: 1 } };
  const status: CrawlStatus = { request_id: id, status: 'completed', url: 'https://example.com/', created_at: 1, reason: 'every page in scope was crawled', counts, pages: [], next: null };
  const page = (n: number, words: number): CrawlPage => ({ url: `https://example.com/p${n}`, status: 'completed', content: { text: '', markdown: Array.from({ length: words }, (_, i) => `w${n}.${i}`).join(' '), meta: { title: `Page ${n}`, description: '' }, links: [], images: [] } });
  const entries: CrawlPage[] = [page(0, 40), page(1, 400), { url: 'https://example.com/gone', status: 'failed', error: 'E008: target answered HTTP 404' }, { url: 'https://example.com/private', status: 'skipped', reason: 'robots.txt disallows it (line 2)' }, ...[4, 5, 6].map((n) => page(n, 30))];

  /** Reads every result as a model would, following each note, from answers of `max` characters. */
  function readAll(max: number): { answers: string[]; sections: string[] } {
    const answers: string[] = [];
    let [cursor, start] = [0, 0];
    for (let guard = 0; guard < 200; guard++) {
      const text = renderCrawl({ kind: 'crawl', status, entries: entries.slice(cursor), cursor, more: false }, { format: 'markdown', max_length: max }, start);
      answers.push(text);
      const on = /cursor "(\d+)"(?: and start_index (\d+))?\.\]$/.exec(text);
      if (!on) break;
      [cursor, start] = [Number(on[1]), Number(on[2] ?? 0)];
    }
    return { answers, sections: answers.flatMap((a) => [...a.matchAll(/^## (\d+)\. /gm)].map((m) => m[1])) };
  }

  it('keeps every answer within max_length and, read on as the notes say, shows every result once in order', () => {
    for (const max of [600, 1_000, 2_500, 20_000]) {
      const { answers, sections } = readAll(max);
      for (const a of answers) expect({ max, length: a.length <= max }).toEqual({ max, length: true });
      expect(answers.at(-1)).toMatch(/\[End of the crawl's results\.\]$/);
      expect(new Set(sections)).toEqual(new Set(['1', '2', '3', '4', '5', '6', '7']));
    }
    // The long page, cut inside, is read whole across answers: each of its words once.
    const words = readAll(600).answers.join(' ').match(/\bw1\.\d+\b/g)!;
    expect(new Set(words).size).toBe(400);
    expect(words.length).toBe(400);
  });

  it('says a running crawl has more to come, and lists failed and skipped results with why', () => {
    const text = renderCrawl({ kind: 'crawl', status: { ...status, status: 'processing', reason: undefined }, entries: entries.slice(2, 4), cursor: 2, more: false }, { format: 'markdown', max_length: 5_000 });
    expect(text).toContain('# Crawl of https://example.com/ (still running)');
    expect(text).toContain('Results: 7 pages read, 1 failed, 1 skipped (robots 1); 9 URLs found');
    expect(text).toContain('## 3. Failed: https://example.com/gone\nE008: target answered HTTP 404');
    expect(text).toContain('## 4. Skipped: https://example.com/private\nrobots.txt disallows it (line 2)');
    expect(text).toMatch(/\[The crawl is still running: these are its results so far\. For the ones that follow, call get_result with request_id "[^"]+", kind "crawl", cursor "4"\. Call it in a little while\.\]$/);
  });

  it('lists a map within max_length, whatever the size, and every URL once across answers', () => {
    const links = Array.from({ length: 120 }, (_, i) => ({ url: `https://example.com/section/${i}`, ...(i % 3 ? { title: `Section ${i}` } : {}) }));
    for (const max of [100, 400, 5_000]) {
      const seen: string[] = [];
      for (let cursor: number | null = 0, guard = 0; cursor !== null && guard < 500; guard++) {
        const text = renderMap({ request_id: id, status: 'completed', url: 'https://example.com/', links }, { max_length: max }, cursor);
        if (max >= 400) expect(text.length).toBeLessThanOrEqual(max);
        seen.push(...[...text.matchAll(/^- (\S+)/gm)].map((m) => m[1]));
        const on = /cursor "(\d+)"\.\]$/.exec(text);
        cursor = on ? Number(on[1]) : null;
      }
      if (max >= 400) expect(seen).toEqual(links.map((l) => l.url));
    }
  });
});
