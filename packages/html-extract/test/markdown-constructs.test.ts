import { describe, expect, it } from '@jest/globals';
import { parseHTML } from 'linkedom';
import { renderMarkdown } from '../src/index.js';

const PAGE_URL = 'https://example.com/dir/page.html';
const rootOf = (body: string) =>
  parseHTML(`<!doctype html><html><body><div id="root">${body}</div></body></html>`).document.getElementById('root') as unknown as Element;
const md = (body: string) => renderMarkdown(rootOf(body), { baseUrl: PAGE_URL });

describe('markdown blocks', () => {
  it('writes ATX headings h1-h6 on one line, without empty ones', () => {
    const out = md('<h1>One</h1><h2>Two <em>em</em></h2><h3></h3><h4>  Four<br>lines  </h4><h5>Five</h5><h6>Six</h6>');
    expect(out).toBe('# One\n\n## Two _em_\n\n#### Four lines\n\n##### Five\n\n###### Six');
  });

  it('escapes a trailing # run that would close the heading', () => {
    expect(md('<h2>Issue #</h2><h2>C#</h2>')).toBe('## Issue \\#\n\n## C#');
  });

  it('separates paragraphs and blocks by exactly one blank line, with no trailing spaces', () => {
    const out = md('<div><p>One </p>\n\n<p></p><div><div> Two&nbsp;</div></div></div><section><p>Three</p></section><hr><p>Four</p>');
    expect(out).toBe('One\n\nTwo\n\nThree\n\n---\n\nFour');
  });

  it('collapses whitespace as a browser does outside <pre>', () => {
    const out = md('<p>Line one\n   continues\there   and <b> bold </b> <i>it</i> .</p><div>  text in div  <p>para</p> tail </div>');
    expect(out).toBe('Line one continues here and **bold** _it_ .\n\ntext in div\n\npara\n\ntail');
  });

  it('writes <br> as a hard break (trailing backslash), two in a row as a new paragraph', () => {
    expect(md('<p><br>one<br>two<br><br><br>three<br></p>')).toBe('one\\\ntwo\n\nthree');
  });

  it('fences <pre> code with its language, a fence longer than any backtick run, and its spacing kept', () => {
    expect(md('<pre><code class="hljs language-ts">\nconst a = 1;\n\n  if (a) run();</code></pre>')).toBe('```ts\nconst a = 1;\n\n  if (a) run();\n```');
    expect(md('<pre class="lang-py">print("```")</pre>')).toBe('````py\nprint("```")\n````');
    expect(md('<pre>a<br>b <b>bold</b></pre>')).toBe('```\na\nb bold\n```');
    expect(md('<pre><span>a</span><p>b<br>c</p><div>d</div>e</pre>')).toBe('```\na\nb\nc\nd\ne\n```');
    expect(md('<pre>   \n</pre><p>after</p>')).toBe('after');
  });

  it('writes a horizontal rule', () => {
    expect(md('<p>a</p><hr><p>b</p>')).toBe('a\n\n---\n\nb');
  });
});

describe('markdown inline', () => {
  it('writes emphasis and strong without empty markers, whitespace outside the markers', () => {
    expect(md('<p>a<em> b </em>c <strong></strong><em> </em>d <b>e</b><i>f</i></p>')).toBe('a _b_ c d **e**_f_');
  });

  it('uses * for emphasis inside a word and joins adjacent markup of one kind', () => {
    expect(md('<p>foo<em>bar</em>baz <b>a</b><b>b</b> <i>x</i><i>y</i> <b><b>nested</b></b></p>')).toBe('foo*bar*baz **ab** _xy_ **nested**');
    expect(md('<p><em><strong>both</strong></em> <strong>a <em>b</em> c</strong> <del>gone</del></p>')).toBe('_**both**_ **a _b_ c** ~~gone~~');
  });

  it('moves &nbsp; at the edges of emphasis outside the markers, where CommonMark needs it', () => {
    expect(md('<p>GUI<i>&nbsp;<b>Oxyd</b></i> x <em>a&nbsp;</em>b <b>&nbsp;</b>c</p>')).toBe('GUI\u00a0_**Oxyd**_ x _a_\u00a0b \u00a0c');
  });

  it('keeps links whole between pieces of emphasis', () => {
    expect(md('<p><em>on</em><a href="/w"><em>Wired</em></a><em>.</em></p>')).toBe('_on_[_Wired_](https://example.com/w)_._');
  });

  it('writes inline code with a fence longer than any backtick run inside', () => {
    expect(md('<p>x<code>a  b</code>y <code> c </code> <code>`</code> <code>``a`</code> <kbd>Ctrl</kbd></p>')).toBe(
      'x`a b`y `c` `` ` `` ``` ``a` ``` `Ctrl`',
    );
  });

  it('writes links with absolute URLs and titles, images with alt and title', () => {
    const out = md(
      '<p><a href="../docs/a.html" title="The &quot;docs&quot;">docs</a> <a href="/wiki/Foo_(bar)">wiki</a> <a href="x)y">odd</a> ' +
        '<img src="img/p.png" alt="A [pic]" title="T"> <a href="https://example.org/">https://example.org/</a></p>',
    );
    expect(out).toBe(
      '[docs](https://example.com/docs/a.html "The \\"docs\\"") [wiki](https://example.com/wiki/Foo_(bar)) [odd](https://example.com/dir/x%29y) ' +
        '![A \\[pic\\]](https://example.com/dir/img/p.png "T") <https://example.org/>',
    );
  });

  it('resolves addresses exactly as new URL does, the ones it resolves without parsing too', () => {
    const values = ['https://example.org/a/b?c=1#d', 'HTTP://Example.org/x', 'http://a.com:80/x', 'http://a.com', 'http://a.com/a/../b', 'http://a.com/a/%2e%2e/b',
      '/root/x.png', '//cdn.example.net/y', 'dir/page.html', 'x?y=1#z', 'a/./b', '.hidden', '~user/', '/x y', 'caf\u00e9.html', '?q=1'];
    for (const base of ['https://www.example.com/a/b/c.html?x=1#y', 'http://example.com:8080/dir/', 'https://user:pw@example.com/a/b']) {
      const root = rootOf(values.map((v) => `<a href="${v}">x</a>`).join(' '));
      const hrefs = [...renderMarkdown(root, { baseUrl: base }).matchAll(/\]\(([^)]*)\)/g)].map((m) => m[1]);
      expect(hrefs).toEqual(values.map((v) => new URL(v, base).href));
    }
  });

  it('resolves fragment links, keeps mailto links, drops javascript: links, empty links and data: images', () => {
    const out = md('<p><a href="#notes">notes</a> <a href="javascript:void(0)">js</a> <a href="mailto:a@b.c">mail</a> <a href="/x"></a><img src="data:image/png;base64,AA" alt="d">end</p>');
    expect(out).toBe('[notes](https://example.com/dir/page.html#notes) js [mail](mailto:a@b.c) end');
  });

  it('puts an image inside its link, and a link around blocks on each of them', () => {
    expect(md('<a href="/x"><img src="i.png" alt="pic"></a>')).toBe('[![pic](https://example.com/dir/i.png)](https://example.com/x)');
    expect(md('<a href="/card"><div><h3>Card</h3><p>Teaser</p></div></a>')).toBe('### [Card](https://example.com/card)\n\n[Teaser](https://example.com/card)');
  });

  it('writes <sup> and <sub> as text', () => {
    expect(md('<p>H<sub>2</sub>O and E=mc<sup>2</sup></p>')).toBe('H2O and E=mc2');
  });

  it('leaves out scripts, styles, templates, form controls, embedded frames and hidden elements', () => {
    const out = md(
      '<p>keep<script>s()</script><style>.a{}</style><noscript>ns</noscript><template>tp</template><svg><text>sv</text></svg><button>bt</button>' +
        '<input value="iv"><select><option>op</option></select><textarea>ta</textarea><iframe>if</iframe><span hidden>hd</span><span style="display: none">dn</span> end</p>',
    );
    expect(out).toBe('keep end');
  });
});

describe('markdown escaping', () => {
  it('escapes characters that would become inline markup, and only those', () => {
    expect(md('<p>a*b_c d_ e [x] `y` \\z ~w &lt;div&gt; &amp;copy; AT&amp;T &amp; 5 &lt; 6 snake_case</p>')).toBe(
      'a\\*b_c d\\_ e \\[x\\] \\`y\\` \\\\z \\~w \\<div> \\&copy; AT&T & 5 < 6 snake_case',
    );
  });

  it('escapes line starts that would become headings, quotes, list items, rules or setext underlines', () => {
    const out = md('<p># not heading</p><p>&gt; quote</p><p>+ plus</p><p>- minus</p><p>* star</p><p>1986. A year</p><p>2) two</p><p>===</p><p>---</p><p>#tag -dash</p>');
    expect(out.split('\n\n')).toEqual(['\\# not heading', '\\> quote', '\\+ plus', '\\- minus', '\\* star', '1986\\. A year', '2\\) two', '\\===', '\\---', '#tag -dash']);
  });

  it('escapes line starts after a hard break and inside list items', () => {
    expect(md('<p>x<br>- y<br>3. z</p><ul><li>1. one</li></ul>')).toBe('x\\\n\\- y\\\n3\\. z\n\n- 1\\. one');
  });
});

describe('markdown lists', () => {
  it('writes unordered lists with - and ordered lists honouring start, value and reversed', () => {
    expect(md('<ul><li>a</li><li>b</li></ul>')).toBe('- a\n- b');
    expect(md('<ol start="7"><li>x</li><li value="3">y</li><li>z</li></ol>')).toBe('7. x\n3. y\n4. z');
    expect(md('<ol reversed><li>a</li><li>b</li></ol>')).toBe('2. a\n1. b');
  });

  it('indents nested lists under their item text, by the width of the marker', () => {
    const items = Array.from({ length: 9 }, (_, i) => `<li>i${i + 1}</li>`).join('');
    const out = md(`<ul><li>one<ul><li>two<ol><li>three</li></ol></li></ul></li><li>four</li></ul><ol>${items}<li>ten<ul><li>sub</li></ul></li></ol>`);
    expect(out).toBe(`- one\n  - two\n    1. three\n- four\n\n${Array.from({ length: 9 }, (_, i) => `${i + 1}. i${i + 1}`).join('\n')}\n10. ten\n    - sub`);
  });

  it('keeps several paragraphs of one item in the item, and items tight', () => {
    expect(md('<ul><li><p>first</p><p>second</p></li><li><p>next</p></li></ul><p>after</p>')).toBe('- first\n\n  second\n- next\n\nafter');
  });

  it('puts code blocks and quotes inside list items', () => {
    expect(md('<ol><li>Run:<pre><code class="language-sh">npm i\nnpm test</code></pre></li><li><blockquote>quoted</blockquote></li></ol>')).toBe(
      '1. Run:\n\n   ```sh\n   npm i\n   npm test\n   ```\n2. > quoted',
    );
  });

  it('gives a list nested directly in a list to the item before it', () => {
    expect(md('<ul><li>x</li><ul><li>y</li></ul><li>z</li></ul>')).toBe('- x\n  - y\n- z');
  });

  it('separates a paragraph that follows a nested list from it', () => {
    expect(md('<ul><li>a<ul><li>b</li></ul>c</li></ul>')).toBe('- a\n  - b\n\n  c');
  });
});

describe('markdown quotes', () => {
  it('quotes every line, nested quotes too, and blank lines between quoted blocks', () => {
    expect(md('<blockquote><blockquote><p>deep</p></blockquote><p>mid<br>line</p></blockquote><p>out</p>')).toBe('> > deep\n>\n> mid\\\n> line\n\nout');
  });

  it('keeps lists and code inside quotes', () => {
    expect(md('<blockquote><p>quote</p><ul><li>a<ul><li>b</li></ul></li></ul><pre>x = 1\n\ny = 2</pre></blockquote>')).toBe(
      '> quote\n>\n> - a\n>   - b\n>\n> ```\n> x = 1\n>\n> y = 2\n> ```',
    );
  });
});

describe('markdown tables', () => {
  it('writes GFM tables with the header from <thead> or a first row of <th>, aligned columns', () => {
    const out = md('<table><thead><tr><th>Name</th><th align="right">Qty</th></tr></thead><tbody><tr><td>Apple</td><td>3</td></tr></tbody></table>');
    expect(out).toBe('| Name  | Qty |\n| ----- | --: |\n| Apple | 3   |');
    expect(md('<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>')).toBe('| k   | v   |\n| --- | --- |\n| a   | 1   |');
  });

  it('makes an empty header for a table without one', () => {
    expect(md('<table><tr><td>a</td><td>b</td></tr></table>')).toBe('|     |     |\n| --- | --- |\n| a   | b   |');
  });

  it('keeps each cell on one line with its inline markup, pipes escaped', () => {
    const out = md('<table><tr><th>A</th><th>B</th></tr><tr><td><code>a|b</code> c|d</td><td><em>e</em><br><a href="/l">link</a><p>p2</p><ul><li>x</li><li>y</li></ul></td></tr></table>');
    expect(out.split('\n')[2]).toBe('| `a\\|b` c\\|d | _e_ [link](https://example.com/l) p2 x y |');
  });

  it('fills the cells a colspan or rowspan covers, and puts the caption above', () => {
    const out = md('<table><caption>Totals</caption><tr><th>a</th><th>b</th><th>c</th></tr><tr><td colspan="2">wide</td><td rowspan="2">tall</td></tr><tr><td>1</td><td>2</td></tr></table>');
    expect(out).toBe('Totals\n\n| a    | b   | c    |\n| ---- | --- | ---- |\n| wide |     | tall |\n| 1    | 2   |      |');
  });

  it('renders layout tables (one column, or holding tables) as blocks', () => {
    expect(md('<table><tr><td><p>Story text.</p></td></tr><tr><td>More.</td></tr></table>')).toBe('Story text.\n\nMore.');
    const out = md('<table><tr><td>Layout<table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table></td><td>Side</td></tr></table>');
    expect(out).toBe('Layout\n\n| x   | y   |\n| --- | --- |\n| 1   | 2   |\n\nSide');
    const prose = Array.from({ length: 4 }, (_, i) => `<p>Paragraph ${i} ${'of a page laid out in a table '.repeat(5)}</p>`).join('');
    expect(md(`<table><tr><td>${prose}</td><td>Menu</td></tr></table>`).split('\n\n')).toHaveLength(5);
    // Infobox cells have several short paragraphs: still a table.
    expect(md('<table><tr><td><p>Flag</p><p>Coat of arms</p></td><td>x</td></tr></table>')).toContain('| Flag Coat of arms | x   |');
  });
});

describe('markdown of other elements', () => {
  it('writes definition lists as a bold term with its definitions below', () => {
    expect(md('<dl><dt>Term <em>x</em></dt><dd>First</dd><dd><p>Second</p><ul><li>a</li></ul></dd><dt>Next</dt><dd>Def</dd></dl>')).toBe(
      '**Term _x_**\n: First\n: Second\n  - a\n\n**Next**\n: Def',
    );
  });

  it('writes figures as the image and its caption', () => {
    expect(md('<figure><img src="/f.png" alt="Fig"><figcaption>The <b>caption</b></figcaption></figure>')).toBe('![Fig](https://example.com/f.png)\n\nThe **caption**');
  });

  it('does not change the subtree it renders', () => {
    const root = rootOf('<p><a href="rel">x</a><img src="i.png"></p>');
    const before = root.innerHTML;
    renderMarkdown(root, { baseUrl: PAGE_URL });
    expect(root.innerHTML).toBe(before);
  });

  it('writes relative addresses as they are without a base URL', () => {
    expect(renderMarkdown(rootOf('<a href="rel">x</a>'))).toBe('[x](rel)');
  });
});
