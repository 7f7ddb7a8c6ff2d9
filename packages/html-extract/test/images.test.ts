import { describe, expect, it } from '@jest/globals';
import { extractPage, largestFromSrcset } from '../src/index.js';
import { page } from './fixtures.js';

const imagesOf = (body: string, url = 'https://example.com/a/', head = '') => extractPage(page(body, head), url).images;
const BIG_DATA_URL = `data:image/png;base64,${'A'.repeat(2000)}`;

describe('srcset', () => {
  it('picks the largest candidate by width or density', () => {
    expect(largestFromSrcset('a.jpg 320w, b.jpg 1024w, c.jpg 640w')).toBe('b.jpg');
    expect(largestFromSrcset('a.jpg, b.jpg 2x, c.jpg 1.5x')).toBe('b.jpg');
    expect(largestFromSrcset('a.jpg 1x,b.jpg 3x')).toBe('b.jpg');
    // Commas inside URLs (image CDNs) are part of the URL, not separators.
    expect(largestFromSrcset('https://img.example.com/c_fill,w_100/a.jpg 100w, https://img.example.com/c_fill,w_800/a.jpg 800w')).toBe('https://img.example.com/c_fill,w_800/a.jpg');
    expect(largestFromSrcset('')).toBeNull();
  });
});

describe('images', () => {
  it('resolves src and the largest srcset candidate against the page', () => {
    expect(imagesOf('<img src="s.jpg" srcset="s.jpg 300w, l.jpg 1200w" alt=" Big  one "><img src="/plain.png">')).toEqual([
      { url: 'https://example.com/a/l.jpg', alt: 'Big one' },
      { url: 'https://example.com/plain.png', alt: '' },
    ]);
  });

  it('reads lazy-loading attributes instead of placeholders, and drops tiny data: placeholders', () => {
    const images = imagesOf(
      `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/lazy.jpg" alt="Lazy">` +
        `<img src="/blank.gif" data-srcset="/ls-1.jpg 1x, /ls-2.jpg 2x">` +
        `<img data-lazy-src="/lazy-src.jpg"><img data-original="/orig.jpg">` +
        `<img src="data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E">` +
        `<img src="${BIG_DATA_URL}" alt="Inline">`,
    );
    expect(images).toEqual([
      { url: 'https://example.com/lazy.jpg', alt: 'Lazy' },
      { url: 'https://example.com/ls-2.jpg', alt: '' },
      { url: 'https://example.com/lazy-src.jpg', alt: '' },
      { url: 'https://example.com/orig.jpg', alt: '' },
      { url: BIG_DATA_URL, alt: 'Inline' },
    ]);
  });

  it('takes <picture><source srcset>, dedupes (keeping an alt), and leaves og:image to the metadata', () => {
    const images = imagesOf(
      '<picture><source srcset="/p1.webp 1x, /p2.webp 2x" type="image/webp"><img src="/p.jpg"></picture><noscript><img src="/p2.webp" alt="Pic"></noscript>',
      'https://example.com/',
      '<meta property="og:image" content="/og.png">',
    );
    expect(images).toEqual([{ url: 'https://example.com/p2.webp', alt: 'Pic' }]);
  });

  it('resolves against <base href>', () => {
    expect(imagesOf('<img src="img/a.png" alt="A">', 'https://example.com/x/y', '<base href="/static/">')).toEqual([{ url: 'https://example.com/static/img/a.png', alt: 'A' }]);
  });
});
