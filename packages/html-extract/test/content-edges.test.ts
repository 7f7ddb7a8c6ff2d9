import { describe, expect, it } from '@jest/globals';
import { trimContentEdges } from '../src/content-edges.js';
import { extractPage } from '../src/index.js';
import { parseDocument } from '../src/parse-document.js';
import { plainText } from '../src/plain-text.js';
import { article, page } from './fixtures.js';

/** The content an extractor chose, as an element, and its text after the edges are trimmed. */
function trimmed(html: string): string {
  const root = parseDocument(page(`<div id="chosen">${html}</div>`)).querySelector('#chosen')!;
  trimContentEdges(root);
  return plainText(root);
}
const links = (titles: string[]) => `<ul>${titles.map((t, i) => `<li><a href="/p/${i}">${t}</a></li>`).join('')}</ul>`;
const headlines = ['Mariah Carey joins the show as its new judge', 'The host confirms the singer is leaving', 'A rock singer quits after two seasons'];

describe('boilerplate after the article', () => {
  it('cuts a labelled listing of other pages after the last paragraph', () => {
    const text = trimmed(`${article(4)}<p><strong>Related content:</strong></p>${links(headlines)}<p><strong>More in The Clicker:</strong></p>${links(headlines)}`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toMatch(/Related content|Mariah Carey|More in The Clicker/);
  });

  it("keeps the article's own list of links under a label that names no listing", () => {
    const text = trimmed(`${article(4)}<p><em>Previous posts in the series</em></p>${links(headlines)}`);
    expect(text).toContain('Previous posts in the series');
    expect(text).toContain('A rock singer quits after two seasons');
  });

  it('cuts a menu of short links after the article (categories, archives)', () => {
    const months = ['August 2012', 'July 2012', 'June 2012', 'May 2012', 'April 2012', 'March 2012', 'February 2012'];
    const text = trimmed(`${article(4)}<h4>Blogroll</h4>${links(months)}`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toMatch(/Blogroll|2012/);
  });

  it('cuts a listing of teasers of other posts', () => {
    const teaser = (i: number) =>
      `<li><h3>Another story number ${i}</h3><p>The first lines of another story that this page only advertises, cut off in the middle of a …</p><p>2012-11-0${i}</p></li>`;
    const text = trimmed(`${article(4)}<ul>${[1, 2, 3].map(teaser).join('')}</ul>`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toMatch(/Another story|first lines/);
  });

  it("cuts a sidebar of links with a site's blurb after it, not a link list the article's text goes on after", () => {
    const sidebar = `<p><a href="/rss">RSS</a></p>${links(headlines)}<p><a href="/about">About us</a></p><p>This page is best viewed in an up-to-date web browser with style sheets (CSS) enabled.</p>`;
    const cut = trimmed(`${article(5)}${sidebar}`);
    expect(cut).toContain('Paragraph 4 of a long enough article');
    expect(cut).not.toMatch(/RSS|Mariah|best viewed/);
    const kept = trimmed(`${article(2)}${links([...headlines, 'One more headline of the roundup'])}${article(3)}`);
    expect(kept).toContain('Mariah Carey joins the show');
  });

  it('keeps a link list followed by a section of sentences (see also, then the references)', () => {
    const references = Array.from({ length: 4 }, (_, i) => `<li>Author ${i}, A. (2004). A book on the subject. Cambridge University Press.</li>`).join('');
    const text = trimmed(`${article(6)}<h2>See also</h2>${links(['Vector space', 'Hermitian form', 'Unitary matrix', 'Self-adjoint operator'])}<h2>References</h2><ol>${references}</ol>`);
    expect(text).toContain('Unitary matrix');
    expect(text).toContain('Author 3');
  });

  it("keeps a data table's linked cells and the text after it", () => {
    const rows = ['Maps', 'Mail', 'Reader', 'Video', 'Music']
      .map((app, i) => `<tr><td><a href="/${app}">${app}</a></td><td>${10 + i}.1 MB</td><td>${i + 2}.4 MB</td></tr>`)
      .join('');
    const text = trimmed(`${article(5)}<table><tr><th>Application</th><th>Size</th><th>Patch</th></tr>${rows}</table><p>Disclaimer: the sizes you see when you update by hand may differ from these.</p>`);
    expect(text).toContain('Application');
    expect(text).toContain('Music');
  });

  it('does not take a paragraph followed by its "Read more" link for the end of the article', () => {
    const profile = (name: string) =>
      `<p>${name} is an early stage venture capital firm with teams in three countries, and it invests in software, media and consumer companies.</p><p><a href="/${name}">→ Learn more</a></p>`;
    const sidebar = `${links(['Alpha Ventures', 'Beta Partners', 'Gamma Capital', 'Delta Fund'])}${['Alpha', 'Beta', 'Gamma'].map(profile).join('')}`;
    const text = trimmed(`${article(6)}${sidebar}<p>Delta is a fund that invests in early stage companies.</p>`);
    expect(text).toContain('Paragraph 5 of a long enough article');
    expect(text).not.toMatch(/Ventures|venture capital|Delta/);
  });

  it('cuts the calls to subscribe and the "Posted by" line that close a post', () => {
    const text = trimmed(`${article(4)}<p>Posted by laurie at September 10, 2012 9:01 AM</p><p>Sign up for our newsletter and get weekly updates!</p><p>Close</p>`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toMatch(/Posted by|newsletter|Close/);
    const blog = trimmed(
      `${article(4)}<p>TrackBack URL for this entry:</p><p>Listed below are links to weblogs that reference The Morning Wrap:</p>` +
        `<p>When you join our list we will send you the links to our exclusive free printables, and our new crafts every week.</p>`,
    );
    expect(blog).toContain('Paragraph 3 of a long enough article');
    expect(blog).not.toMatch(/TrackBack|weblogs|join our list/);
  });

  it('cuts an "About the Author" box that closes a post', () => {
    const text = trimmed(`${article(4)}<p>About the Author: Derek is the marketing guy at a theme shop, and he writes about design and the psychology of selling.</p>`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toContain('About the Author');
  });

  it("keeps an author's own closing sentence that asks readers to follow", () => {
    const text = trimmed(`${article(4)}<p>Stay tuned for next week! In the meantime, follow me on Twitter and subscribe to the RSS feed.</p>`);
    expect(text).toContain('follow me on Twitter');
  });

  it('cuts the same short line many times in a row, not a label that recurs between paragraphs', () => {
    const slides = Array.from({ length: 6 }, () => '<div class="slide"><h3>Election 2012: The best photos</h3><img src="/s.jpg"></div>').join('');
    const text = trimmed(`${slides}${article(4)}`);
    expect(text).toContain('Paragraph 3 of a long enough article');
    expect(text).not.toContain('best photos');
    const interview = trimmed(Array.from({ length: 6 }, (_, i) => `<p><b>Anne:</b></p><p>Answer ${i} of the interview, in a sentence long enough to read as the article's text.</p>`).join(''));
    expect(interview.match(/Anne:/g)).toHaveLength(6);
  });

  it('cuts a menu or a staff list that opens the content before the first paragraph, not a facts box or the title', () => {
    const staff = ['Andrew Ramonas', 'Lobbying Reporter', 'David Brown', 'Editor in Chief', 'Jenna Greene', 'Senior Reporter', 'Tony Mauro', 'Supreme Court Correspondent'];
    const text = trimmed(`${staff.map((s) => `<p>${s}</p>`).join('')}<h2>The Morning Wrap</h2>${article(4)}`);
    expect(text).toContain('The Morning Wrap');
    expect(text).not.toMatch(/Ramonas|Reporter/);
    const facts = ['Book info:', 'ISBN: 9783453580565', 'Pages: 448', 'Publisher: Heyne', 'Price: 12,99 €', 'Series: Love is War', 'Volume 1: Desire', 'Volume 2: Longing'];
    const review = trimmed(`${facts.map((s) => `<p>${s}</p>`).join('')}${article(4)}`);
    expect(review).toContain('ISBN: 9783453580565');
    expect(review).toContain('Volume 2: Longing');
  });

  it('never cuts half the text', () => {
    const many = Array.from({ length: 12 }, (_, i) => `Related headline number ${i} of a long listing`);
    const text = trimmed(`${article(1)}<p>Related stories:</p>${links(many)}`);
    expect(text).toContain('Related headline number 11');
  });

  it('trims the text and the markdown extractPage gives', () => {
    const html = page(`<article><h1>Story</h1>${article(5)}<p><b>Related stories:</b></p>${links(headlines)}</article>`, '<title>Story</title>');
    const out = extractPage(html, 'https://news.example/story', { markdown: true });
    expect(out.text).toContain('Paragraph 4 of a long enough article');
    for (const output of [out.text, out.markdown!]) expect(output).not.toMatch(/Related stories|Mariah Carey/);
  });
});
