import { describe, expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { article, page } from './fixtures.js';

const linksOf = (body: string, url: string, head = '') => extractPage(page(body, head), url).links;
const byText = (links: ReturnType<typeof linksOf>) => new Map(links.map((l) => [l.text, l]));

describe('links', () => {
  it('types links by registrable domain, not by host name', () => {
    const links = byText(
      linksOf(
        `<nav><a href="/about">About</a></nav><article>${article()}<a href="https://blog.example.co.uk/post">Blog</a><a href="https://shop.other.co.uk/">Other UK</a><a href="//cdn.example.co.uk/x">CDN</a></article>`,
        'https://www.example.co.uk/news/story.html',
      ),
    );
    expect(links.get('About')).toEqual({ text: 'About', url: 'https://www.example.co.uk/about', type: 'internal' });
    expect(links.get('Blog')?.type).toBe('internal');
    expect(links.get('CDN')).toEqual({ text: 'CDN', url: 'https://cdn.example.co.uk/x', type: 'internal' });
    expect(links.get('Other UK')?.type).toBe('external');

    const com = byText(linksOf('<a href="https://example.org/x">Org</a><a href="https://www.example.com/y">Com</a>', 'https://example.com/'));
    expect(com.get('Org')?.type).toBe('external');
    expect(com.get('Com')?.type).toBe('internal');
  });

  it('compares host names for IP addresses and hosts without a public suffix', () => {
    const local = byText(linksOf('<a href="/a">A</a><a href="http://127.0.0.1:3000/b">Loopback</a><a href="http://intranet/c">Intranet</a>', 'http://localhost:3000/'));
    expect(local.get('A')?.type).toBe('internal');
    expect(local.get('Loopback')?.type).toBe('external');
    expect(local.get('Intranet')?.type).toBe('external');
    const ip = byText(linksOf('<a href="http://10.0.0.5:8080/x">Same IP</a><a href="http://10.0.0.6/x">Other IP</a>', 'http://10.0.0.5/'));
    expect(ip.get('Same IP')?.type).toBe('internal');
    expect(ip.get('Other IP')?.type).toBe('external');
  });

  it('types mailto and tel, drops javascript:, data: and same-page fragments', () => {
    const links = linksOf(
      `<a href="mailto:hi@example.com?subject=Hello">Mail</a><a href="tel:+44 (20) 1234-5678">Call</a><a href="javascript:void(0)">JS</a><a href=" JavaScript:alert(1)">JS2</a><a href="data:text/html,hi">Data</a><a href="#top">Top</a><a href="story.html#comments">Comments</a><a href="other.html#part">Other part</a>`,
      'https://example.com/news/story.html',
    );
    expect(links).toEqual([
      { text: 'Mail', url: 'mailto:hi@example.com?subject=Hello', type: 'mailto' },
      { text: 'Call', url: 'tel:+442012345678', type: 'tel' },
      { text: 'Other part', url: 'https://example.com/news/other.html#part', type: 'internal' },
    ]);
  });

  it('removes duplicates (ignoring the fragment) and keeps the first non-empty text', () => {
    const links = linksOf('<a href="/x"><img src="/i.png" alt=""></a><a href="/x#more">Read more</a><a href="https://example.com/x">Again</a><a href="/y" aria-label="Profile"></a>', 'https://example.com/');
    expect(links).toEqual([
      { text: 'Read more', url: 'https://example.com/x', type: 'internal' },
      { text: 'Profile', url: 'https://example.com/y', type: 'internal' },
    ]);
  });

  it('resolves relative links against <base href>', () => {
    const links = linksOf('<a href="rel/page">Rel</a><a href="/root">Root</a>', 'https://example.com/x/y', '<base href="https://cdn.example.net/base/">');
    expect(links).toEqual([
      { text: 'Rel', url: 'https://cdn.example.net/base/rel/page', type: 'external' },
      { text: 'Root', url: 'https://cdn.example.net/root', type: 'external' },
    ]);
  });

  it('300 unclosed anchors give 300 links, each with its own text (issue 24: 125, each swallowing the next)', () => {
    const body = `<p>${Array.from({ length: 300 }, (_, i) => `<a href="/p/${i}">Link ${i}`).join(' ')}</p>`;
    const links = linksOf(body, 'https://example.com/');
    expect(links).toEqual(Array.from({ length: 300 }, (_, i) => ({ text: `Link ${i}`, url: `https://example.com/p/${i}`, type: 'internal' })));
  });
});
