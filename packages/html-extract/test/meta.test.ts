import { describe, expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { article, page } from './fixtures.js';

describe('metadata', () => {
  it('reads title, description, og, twitter, JSON-LD and the rest', () => {
    const head = [
      '<title>Story - The Site</title>',
      '<meta name="description" content="A story.">',
      '<meta property="og:title" content="OG Story">',
      '<meta property="og:site_name" content="The Site">',
      '<meta property="og:image" content="/og.png">',
      '<meta name="twitter:card" content="summary">',
      '<meta name="keywords" content="a, b ,c">',
      '<meta property="article:published_time" content="2024-01-02T10:00:00Z">',
      '<meta property="article:modified_time" content="2024-01-03T10:00:00Z">',
      '<link rel="canonical" href="/canon">',
      '<link rel="icon" href="/fav.ico">',
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"LD Story","author":{"name":"Ann Writer"}}</script>',
      '<script type="application/ld+json">{broken</script>',
    ].join('');
    const out = extractPage(page(`<article><h1>LD Story</h1>${article()}</article>`, head), 'https://example.com/s');
    expect(out.title).toBe('LD Story');
    expect(out.meta).toMatchObject({
      title: 'LD Story',
      description: 'A story.',
      language: 'en',
      canonical_url: 'https://example.com/canon',
      site_name: 'The Site',
      author: 'Ann Writer',
      published_time: '2024-01-02T10:00:00Z',
      modified_time: '2024-01-03T10:00:00Z',
      keywords: ['a', 'b', 'c'],
      favicon: 'https://example.com/fav.ico',
      og_image: 'https://example.com/og.png',
      og: { title: 'OG Story', site_name: 'The Site', image: '/og.png' },
      twitter: { card: 'summary' },
    });
    // The broken block is skipped, the good one kept as parsed JSON.
    expect(out.meta.json_ld).toEqual([{ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: 'LD Story', author: { name: 'Ann Writer' } }]);
  });

  it('parses JSON-LD with @graph, CDATA wrappers and raw newlines inside strings', () => {
    const head =
      '<script type="application/ld+json">//<![CDATA[\n{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"Site"},{"@type":"BlogPosting","headline":"Graph post","description":"Line one\nline two"}]}\n//]]></script>';
    // Both the JavaScript-comment form (`//<![CDATA[`, as WordPress plugins write it) and the bare one parse.
    const bare = head.replace('//<![CDATA[\n', '<![CDATA[').replace('\n//]]>', ']]>');
    for (const wrapped of [head, bare]) {
      const out = extractPage(page(`<article>${article()}</article>`, wrapped), 'https://example.com/');
      expect(out.meta.json_ld).toHaveLength(1);
      expect(out.meta.description).toBe('Line one line two');
    }
    const broken = head.replace('"@context"', '@context');
    expect(extractPage(page(`<article>${article()}</article>`, broken), 'https://example.com/').meta.json_ld).toBeUndefined();
  });

  it('describes a page that has no description with its first paragraph, and omits absent fields', () => {
    const out = extractPage(page(`<article>${article()}</article>`, '<title>A plain page about paragraphs</title>'), 'https://example.com/');
    expect(out.meta.title).toBe('A plain page about paragraphs');
    expect(out.meta.description).toMatch(/^Paragraph 0 of a long enough article body/);
    for (const key of ['canonical_url', 'site_name', 'author', 'published_time', 'keywords', 'favicon', 'og_image', 'og', 'twitter', 'json_ld']) {
      expect(out.meta).not.toHaveProperty(key);
    }
  });

  it('cuts the site name off <title> when nothing better names the page', () => {
    const out = extractPage(page(`<article>${article()}</article>`, '<title>Council approves the new riverside park plan | Springfield Gazette</title>'), 'https://example.com/');
    expect(out.meta.title).toBe('Council approves the new riverside park plan');
  });
});
