import { describe, expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { page } from './fixtures.js';

/**
 * Quoted and listed content is the article's (issue 35): embedded posts with their attribution
 * line, numbered lists of products or resources that make the article's body, and one-line
 * calls inside the text stay, in text and in markdown (as quotes and lists), unless they stand
 * outside the article's container.
 */

const URL = 'https://news.example.com/2024/05/story';
const paragraph = (topic: string, i: number) =>
  `<p>${topic} paragraph ${i}: the council met on Tuesday evening and went through the plans for the harbour, the budget for the next two years and the timetable of the works, which residents had asked about for months.</p>`;
const story = (topic: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => paragraph(topic, from + i)).join('');
const shell = (content: string, title: string) =>
  page(
    `<header class="site-header"><nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav></header>` +
      `<div id="page" class="layout"><main><article class="post"><h1>${title}</h1>${content}</article></main>` +
      `<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Another story about the harbour works and the council</a></li><li><a href="/b">Second headline of the sidebar box</a></li></ul>` +
      `<blockquote class="twitter-tweet"><p>A tweet in the sidebar, outside the article.</p>&mdash; Sidebar Account (@sidebar) <a href="https://twitter.com/sidebar/status/1">May 2, 2024</a></blockquote></aside></div>` +
      `<footer class="site-footer"><p>© 2024 Example News. All rights reserved.</p></footer>`,
    `<title>${title} | Example News</title>`,
  );

describe('embedded social posts', () => {
  const tweet =
    '<blockquote class="twitter-tweet"><p lang="en" dir="ltr">The harbour plan passed tonight, 9 votes to 2. Works start in June. <a href="https://t.co/abc">pic.twitter.com/abc</a></p>' +
    '&mdash; Jane Reporter (@janereports) <a href="https://twitter.com/janereports/status/123">May 1, 2024</a></blockquote>';
  const instagram =
    '<blockquote class="instagram-media" data-instgrm-permalink="https://www.instagram.com/p/XYZ/"><div><a href="https://www.instagram.com/p/XYZ/">View this post on Instagram</a>' +
    '<p><a href="https://www.instagram.com/p/XYZ/">A post shared by Harbour Friends (@harbourfriends)</a></p></div></blockquote>';
  const toot =
    '<blockquote class="mastodon-embed" data-embed-url="https://social.example/@mayor/1"><p>Thank you to everyone who came to the meeting tonight.</p>' +
    '&mdash; The Mayor (@mayor@social.example) <a href="https://social.example/@mayor/1">May 1, 2024</a></blockquote>';

  it('keeps tweets, toots and Instagram posts in the article with their attribution lines, as quotes in markdown', () => {
    const out = extractPage(shell(`${story('Vote', 0, 3)}${tweet}${story('Reaction', 3, 5)}${instagram}${toot}`, 'Council approves the harbour plan'), URL, { markdown: true });
    expect(out.text).toContain('The harbour plan passed tonight, 9 votes to 2.');
    expect(out.text).toContain('Jane Reporter (@janereports)');
    expect(out.text).toContain('May 1, 2024');
    expect(out.text).toContain('A post shared by Harbour Friends (@harbourfriends)');
    expect(out.text).toContain('Thank you to everyone who came to the meeting tonight.');
    expect(out.text).toContain('The Mayor (@mayor@social.example)');
    expect(out.markdown).toMatch(/^> The harbour plan passed tonight, 9 votes to 2\./m);
    expect(out.markdown).toMatch(/^> .*Jane Reporter \(@janereports\)/m);
    // Outside the article's container: the sidebar's tweet stays out.
    expect(out.text).not.toContain('A tweet in the sidebar');
  });

  it('keeps a story that ends with embedded posts, and a post in a box named like a social bar', () => {
    const boxed = `<div class="social-embed">${tweet.replace('The harbour plan', 'The harbour scheme')}</div>`;
    const out = extractPage(shell(`${story('Vote', 0, 4)}${boxed}${toot}`, 'Council approves the harbour plan'), URL, { markdown: true });
    expect(out.text).toContain('The harbour scheme passed tonight');
    expect(out.text).toContain('Thank you to everyone who came to the meeting tonight.');
    expect(out.text).toContain('The Mayor (@mayor@social.example)');
  });
});

describe('numbered lists that are the article', () => {
  it('keeps a numbered product list with its links, as a numbered list in markdown', () => {
    const products = Array.from(
      { length: 8 },
      (_, i) => `<li><a href="https://shop.example.com/item-${i}">Harbour lantern model ${i + 1}</a></li>`,
    ).join('');
    const out = extractPage(shell(`${story('Gift guide', 0, 2)}<ol>${products}</ol>`, 'The best harbour lanterns to buy'), URL, { markdown: true });
    for (let i = 1; i <= 8; i++) expect(out.text).toContain(`Harbour lantern model ${i}`);
    expect(out.markdown).toMatch(/^1\. \[Harbour lantern model 1\]\(https:\/\/shop\.example\.com\/item-0\)/m);
    expect(out.markdown).toMatch(/^8\. \[Harbour lantern model 8\]/m);
  });

  it('keeps a numbered list of resources that closes the article', () => {
    const resources = Array.from({ length: 6 }, (_, i) => `<li><a href="https://docs.example.org/${i}">Guide ${i + 1}</a></li>`).join('');
    const out = extractPage(shell(`${story('Background', 0, 4)}<h2>Further reading</h2><ol>${resources}</ol>`, 'How the harbour plan came about'), URL, { markdown: true });
    for (let i = 1; i <= 6; i++) expect(out.text).toContain(`Guide ${i}`);
    expect(out.markdown).toMatch(/^6\. \[Guide 6\]/m);
  });
});

describe('one-line calls inside the text', () => {
  it('keeps a call between paragraphs of the article, in text and markdown', () => {
    const calls =
      '<p><a href="https://twitter.com/janereports">Follow Jane Reporter on Twitter for live updates from the council</a></p>' +
      '<p>Sign up for the harbour works newsletter <a href="/newsletter">here</a>.</p>';
    const out = extractPage(shell(`${story('Vote', 0, 3)}${calls}${story('Reaction', 3, 6)}`, 'Council approves the harbour plan'), URL, { markdown: true });
    expect(out.text).toContain('Follow Jane Reporter on Twitter for live updates from the council');
    expect(out.text).toContain('Sign up for the harbour works newsletter here.');
    expect(out.markdown).toContain('[Follow Jane Reporter on Twitter for live updates from the council](https://twitter.com/janereports)');
    expect(out.text).toContain('Reaction paragraph 5');
  });
});
