import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { ExtractionTimeoutError, extractPage, extractText, plainText, prepareHtml } from '../src/index.js';
import { MAX_DEPTH } from '../src/cap-nesting.js';
import { article, page } from './fixtures.js';
import { threadCpuMs } from '../../../tests/support/cpu-time.js';

describe('main content', () => {
  it('gives the page without its chrome when Readability finds nothing on a short page', () => {
    // Readability drops a heading that repeats the title, and then has no article at all.
    const out = extractPage(page('<nav><a href="/">Home</a></nav><div><h1>Welcome home</h1></div><footer>Footer links</footer>', '<title>Welcome home</title>'), 'https://example.com/');
    expect(out.contentSource).toBe('region');
    expect(out.text).toBe('Welcome home');
    expect(out.meta.title).toBe('Welcome home');
  });

  it('keeps the whole body when dropping page chrome would leave nothing', () => {
    const out = extractPage(page('<div><aside>Opening hours: nine to five</aside></div>', '<title>Hours</title>'), 'https://example.com/');
    expect(out.text).toBe('Opening hours: nine to five');
  });

  it('keeps every item of a listing page', () => {
    const items = Array.from({ length: 40 }, (_, i) => `<div class="teaser"><a href="/story/${i}">Headline number ${i}</a><span>Brief ${i}</span></div>`).join('');
    const out = extractPage(page(`<header><a href="/">Site</a></header><main>${items}</main><footer>Copyright notice</footer>`), 'https://example.com/');
    expect(out.text).toContain('Headline number 0');
    expect(out.text).toContain('Headline number 39');
    expect(out.text).not.toContain('Copyright notice');
  });

  it('leaves hidden nodes, navigation and asides out of the fallback', () => {
    const out = extractPage(
      page('<nav>Menu entries</nav><div><p>Visible words.</p><p style="display: none">Invisible words</p><p hidden>Hidden words</p><div aria-hidden="true">Aria hidden</div></div><aside>Related</aside>'),
      'https://example.com/',
    );
    expect(out.text).toBe('Visible words.');
  });

  it('never returns script or style text', () => {
    const out = extractPage(
      page(`<style>.x{color:red}</style><script>var secret = "do not show <!-- ";</script><article>${article(3)}<noscript>enable js</noscript><template><p>template text</p></template></article><svg><text>svg label</text></svg>`),
      'https://example.com/',
      { markdown: true },
    );
    for (const output of [out.text, out.markdown ?? '']) expect(output).not.toMatch(/color:red|do not show|enable js|template text|svg label/);
    expect(out.text).toContain('Paragraph 2 of a long enough');
  });

  it('reads documents that omit <html>, <head> and <body>, and content after </body>', () => {
    const out = extractPage('<!doctype html><title>Bare page</title><meta name="description" content="Bare."><p>First paragraph.<p>Second paragraph.', 'https://example.com/');
    expect(out.text).toBe('First paragraph.\n\nSecond paragraph.');
    expect(out.meta).toMatchObject({ title: 'Bare page', description: 'Bare.' });
    const trailing = extractPage(page('<p>Inside the body.</p>').replace('</html>', '<p>After the body.</p></html>'), 'https://example.com/');
    expect(trailing.text).toBe('Inside the body.\n\nAfter the body.');
  });

  it('extracts a 400,000-deep page (4.4 MB) in well under a second per MB, keeping the text', () => {
    // Before the nesting cap this page took 233 s (linkedom's parse and Readability are both
    // quadratic in depth); capped it takes about half a second. 10 s of CPU (not wall-clock time,
    // which a loaded machine stretches) is still 20x below the quadratic time.
    const deep = page(`<p>Intro text.</p>${'<div>'.repeat(400_000)}<span>Deep text.</span>${'</div>'.repeat(400_000)}<p>After text.</p>`);
    expect(deep.length).toBeGreaterThan(4_400_000);
    const started = threadCpuMs();
    const out = extractPage(deep, 'https://example.com/', { markdown: true });
    expect(threadCpuMs() - started).toBeLessThan(10_000);
    expect(out.text).toBe('Intro text.\n\nDeep text.\n\nAfter text.');
    expect(out.markdown).toBe('Intro text.\n\nDeep text.\n\nAfter text.');
  });

  it('extracts a 100,000-deep page with text at every level, keeping the text past the cap', () => {
    const deep = page(`<h1>Title</h1>${'<div>Level text '.repeat(100_000)}${'</div>'.repeat(100_000)}`);
    const started = threadCpuMs();
    const out = extractPage(deep, 'https://example.com/', { markdown: true });
    expect(threadCpuMs() - started).toBeLessThan(10_000);
    // Readability's article is the block holding the flattened levels; the text of the elements
    // above it (fewer than MAX_DEPTH of them) is page chrome to it, so it may leave those out.
    expect(out.text.match(/Level text/g)!.length).toBeGreaterThan(100_000 - MAX_DEPTH);
  });

  it('extractText gives the same text as extractPage', () => {
    const html = page(`<article><h2>Heading</h2>${article(4)}</article>`);
    expect(extractText(html)).toBe(extractPage(html, 'https://example.com/').text);
  });

  it('stops with ExtractionTimeoutError when the time budget is spent', () => {
    const html = page(`<article>${article(3000)}</article>`);
    expect(() => extractPage(html, 'https://example.com/', { markdown: true, timeBudgetMs: 1 })).toThrow(ExtractionTimeoutError);
    expect(() => extractPage(html, 'https://example.com/', { markdown: true, timeBudgetMs: 1 })).toThrow(/1 ms budget/);
  });
});

describe('pre-cleaning (prepareHtml)', () => {
  // 80,000 openers that never close or never reach their `>` (about 0.5 MB). A scan that looks for
  // the closer once per opener is quadratic: the former regular expressions took 3 to 36 s on these
  // inputs; the linear scanner takes tens of ms. The 1.5 s bound is ~20x the linear time, room
  // for a loaded shared machine (CPU time: other processes do not stretch it), and still well below what a quadratic scan needs.
  const hostile: Array<[string, string]> = [
    ['unclosed <script>', '<script>'],
    ['unclosed <svg>', '<svg>'],
    ['<script without its >', '<script '],
    ['<link without its >', '<link '],
    ['unclosed <style>', '<style media="x">'],
    ['<body without its >', '<body '],
    ['</html without its >', '</html '],
    ['</script without its >', '<script>x</script '],
  ];
  it.each(hostile)('handles 80,000 × %s in linear time', (_name, opener) => {
    const html = `<p>Before.</p>${opener.repeat(80_000)}`;
    const started = threadCpuMs();
    const prepared = prepareHtml(html);
    expect(threadCpuMs() - started).toBeLessThan(1500);
    expect(prepared).toContain('<p>Before.</p>');
  });

  it('ends a script at the `>` of its end tag wherever that is, as browsers do', () => {
    // "</script" then a comment: the end tag's attributes run to the comment's ">".
    const prepared = prepareHtml('<script src="x.js"></script\n<!-- widget --><p>The article.</p><script>y()</script>');
    expect(prepared).toContain('<p>The article.</p>');
    expect(prepared).not.toContain('y()');
  });

  it('removes closed constructs, keeps JSON-LD, and leaves an unclosed element to the parser', () => {
    const prepared = prepareHtml(
      '<p>a</p><!-- c <script>x</script> --><script>var s = "<!--";</script><p>b</p><svg/><p>c</p><svg><path/></svg>' +
        '<script type="application/ld+json">{"@type":"Article"}</script><link rel="stylesheet" href="s.css"><link rel="icon" href="i.png">' +
        '<STYLE>p{}</style ><svg-icon>kept</svg-icon><script>never closed <p>d</p>',
    );
    const body = prepared.slice(prepared.indexOf('<body>') + 6, prepared.lastIndexOf('</body>'));
    expect(body).toBe(
      '<p>a</p><p>b</p><p>c</p><script type="application/ld+json">{"@type":"Article"}</script><link rel="icon" href="i.png"><svg-icon>kept</svg-icon><script>never closed <p>d</p>',
    );
  });
});

describe('plain text', () => {
  const textOf = (body: string) => plainText(parseHTML(page(`<div id="root">${body}</div>`)).document.getElementById('root') as unknown as Element);

  it('puts blocks in paragraphs, headings and list items on their own lines, and collapses whitespace', () => {
    expect(textOf('<h1>Title</h1><p>Some   text\n   across\tlines<br>next line</p><ul><li>one</li><li>two <b>bold</b></li></ul><p>a<br><br>b</p>')).toBe(
      'Title\n\nSome text across lines\nnext line\n\none\ntwo bold\n\na\n\nb',
    );
  });

  it('keeps preformatted text as it is and separates table cells with tabs', () => {
    expect(textOf('<pre>\n  code\n    indented\n</pre><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td> 2 </td></tr></table>')).toBe('  code\n    indented\n\nA\tB\n1\t2');
  });

  it('joins inline elements without inventing spaces', () => {
    expect(textOf('<p>Hel<b>lo</b> <a href="#">wor</a>ld<img src="x.png" alt="alt"></p>')).toBe('Hello world');
  });
});
