import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { extractPage, renderMarkdown } from '../src/index.js';
import { CORPUS_PAGE_URL, WEB_CORPUS } from '../../../tests/support/web-corpus.js';
import { article, page } from './fixtures.js';
import { bestCpuMsOf } from '../../../tests/support/cpu-time.js';


const rootOf = (body: string) => parseHTML(page(`<div id="root">${body}</div>`)).document.getElementById('root') as unknown as Element;

describe('markdown', () => {
  it('renders GFM tables, fenced code and absolute links and images (against <base href>)', () => {
    const out = extractPage(
      page(
        `<article>${article(4)}<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tbody><tr><td>Apple</td><td>3</td></tr></tbody></table>` +
          `<pre><code>const a = 1;\nconsole.log(a);</code></pre><p>See <a href="docs">the docs</a> and <img src="img/fig.png" alt="Figure">.</p></article>`,
        '<base href="https://static.example.com/v2/">',
      ),
      'https://example.com/page',
      { markdown: true },
    );
    expect(out.markdown).toMatch(/\| Name +\| Qty \|\n\| -+ \| -+ \|\n\| Apple +\| 3 +\|/);
    expect(out.markdown).toContain('```\nconst a = 1;\nconsole.log(a);\n```');
    expect(out.markdown).toContain('[the docs](https://static.example.com/v2/docs)');
    expect(out.markdown).toContain('![Figure](https://static.example.com/v2/img/fig.png)');
  });

  it.each(['base-url', 'base-url-base-element', 'base-url-base-element-relative'])('resolves every link and image of the %s fixture as Readability does', (folder) => {
    const dir = path.join(WEB_CORPUS, folder);
    const out = extractPage(fs.readFileSync(path.join(dir, 'source.html'), 'utf8'), CORPUS_PAGE_URL, { markdown: true });
    // Readability keeps a same-page `#fragment` as written; our markdown resolves it against the
    // page (issue 3: absolute URLs), as it does every other reference.
    const expectedUrls = [...fs.readFileSync(path.join(dir, 'expected.html'), 'utf8').matchAll(/\s(?:href|src)="([^"]+)"/g)].map((m) =>
      m[1].startsWith('#') ? new URL(m[1], CORPUS_PAGE_URL).href : m[1],
    );
    expect(expectedUrls.length).toBeGreaterThan(5);
    const markdownUrls = [...out.markdown!.matchAll(/\]\(([^)\s]+)/g)].map((m) => m[1]);
    expect(markdownUrls).toEqual(expectedUrls);
  });

  it('writes same-page fragment links absolute, against the page or its <base href>', () => {
    const body = `<article>${article(4)}<p>A claim.<sup><a href="#cite_note-1">[1]</a></sup></p><ol><li id="cite_note-1">A source.</li></ol></article>`;
    const plain = extractPage(page(body), 'https://en.example.org/wiki/Topic#History', { markdown: true });
    expect(plain.markdown).toContain('[\\[1\\]](https://en.example.org/wiki/Topic#cite_note-1)');
    expect(plain.markdown).not.toMatch(/\]\(#/);
    // Fragments resolve against the document's base URL, as in a browser.
    const based = extractPage(page(body, '<base href="https://mirror.example.net/topic.html">'), 'https://en.example.org/wiki/Topic', { markdown: true });
    expect(based.markdown).toContain('(https://mirror.example.net/topic.html#cite_note-1)');
    // links[] lists other documents only: a same-page fragment is no link to follow.
    expect(plain.links.map((l) => l.url)).not.toContain('https://en.example.org/wiki/Topic#cite_note-1');
    for (const link of plain.links) expect(link.url).toMatch(/^https?:\/\/[^/]/);
  });

  it('is absent unless asked for', () => {
    expect(extractPage(page(`<article>${article()}</article>`), 'https://example.com/')).not.toHaveProperty('markdown');
  });

  it('renders in time linear in the page size (8x the content, in the same paragraphs, lists, quotes and tables, takes about 8x)', () => {
    // Each structure grows inside itself, where a renderer that re-reads its output would slow down.
    const contentTimes = (n: number) => {
      const inline = Array.from({ length: 400 * n }, (_, i) => `word <em>em${i}</em> <a href="/l/${i}">link</a> <code>c${i}</code>`).join(' ');
      const items = Array.from({ length: 150 * n }, (_, i) => `<li>item ${i}<ul><li>sub <b>${i}</b></li></ul></li>`).join('');
      const quoted = Array.from({ length: 150 * n }, (_, i) => `<p>quoted ${i}</p>`).join('');
      const rows = Array.from({ length: 150 * n }, (_, i) => `<tr><td>${i}</td><td><i>cell</i> ${i}</td></tr>`).join('');
      const sections = Array.from({ length: 40 * n }, (_, i) => `<h2>Section ${i}</h2>${article(2)}<pre><code>const x = ${i};</code></pre>`).join('');
      return rootOf(`<article><p>${inline}</p><ol>${items}</ol><blockquote>${quoted}</blockquote><table><tr><th>k</th><th>v</th></tr>${rows}</table>${sections}</article>`);
    };
    const small = contentTimes(3);
    const large = contentTimes(24);
    // CPU time, interleaved, best of several: other processes on the machine do not stretch it.
    const best = bestCpuMsOf((root: Element) => renderMarkdown(root, { baseUrl: 'https://example.com/' }), small, large, 6);
    // Linear is about 8 (a little more as the data outgrows the caches); quadratic would be about 64.
    expect(best.large / best.small).toBeLessThan(24);
    const markdown = renderMarkdown(large, { baseUrl: 'https://example.com/' });
    expect(markdown).toContain('## Section 959\n');
    expect(markdown.indexOf('## Section 200\n')).toBeLessThan(markdown.indexOf('## Section 201\n'));
    expect(markdown.match(/^\| \d+ +\| _cell_ \d+ +\|$/gm)).toHaveLength(3600);
  });
});
