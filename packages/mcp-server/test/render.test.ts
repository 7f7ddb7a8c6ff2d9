import { describe, expect, it } from '@jest/globals';
import { cutText, PAGE_BREAK, pageNumbers, renderDocument } from '../src/render.js';

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

  it('says when the chosen pages do not exist', () => {
    expect(renderDocument(doc, { max_length: 1000, pages: '5' })).toBe('Document: http://files/report.pdf\nType: pdf, 3 pages (showing none: no such page)\nRequest ID: id-1\n\n(No text was found in the document.)');
  });

  it('a one-page document is its text, without a label', () => {
    expect(renderDocument({ ...doc, type: 'txt', data: 'only page' }, { max_length: 1000 })).toBe('Document: http://files/report.pdf\nType: txt, 1 page\nRequest ID: id-1\n\nonly page');
  });
});
