import { describe, expect, it } from '@jest/globals';
import { extractPage } from '../src/index.js';
import { cleanArticle, trimTrailingLabels } from '../src/main-region.js';
import { parseDocument } from '../src/parse-document.js';
import { plainText } from '../src/plain-text.js';
import { article, page } from './fixtures.js';

const URL = 'https://news.example/story';
const chrome = (main: string) =>
  page(
    `<header><a href="/">The Daily Example</a><nav><a href="/world">World</a><a href="/sport">Sport</a><a href="/culture">Culture</a></nav></header>` +
      `<main>${main}</main>` +
      `<footer><p>Copyright 2024 The Daily Example. All rights reserved. Imprint and privacy policy.</p></footer>`,
    '<title>Story</title>',
  );
const teasers = (n: number) =>
  `<section><h2>More stories</h2><ul>${Array.from({ length: n }, (_, i) => `<li><a href="/story/${i}">Another headline number ${i} that leads elsewhere</a></li>`).join('')}</ul></section>`;

describe('main content beyond Readability', () => {
  it('keeps a short news brief without the page around it', () => {
    const brief = '<article><h1>Bridge reopens</h1><p>The river bridge reopened on Monday after three weeks of repairs, the city said.</p></article>';
    const out = extractPage(chrome(brief + teasers(12)), URL);
    expect(out.text).toContain('The river bridge reopened on Monday');
    expect(out.text).not.toMatch(/Another headline|Copyright 2024|Culture/);
  });

  it('drops share bars, newsletter boxes, related lists and comments inside the article', () => {
    const body =
      `<article><h1>Long read</h1><div class="share-buttons"><a href="https://x.example/share">Share on X</a><a href="mailto:?">Email</a></div>${article(6)}` +
      `<div class="newsletter-signup"><p>Sign up to our newsletter and never miss a story, every morning in your inbox.</p></div>` +
      `<div class="related-articles"><h3>Related</h3><ul><li><a href="/a">A related story</a></li><li><a href="/b">Another related story</a></li></ul></div></article>` +
      `<section id="comments"><div class="comment"><p>I disagree with every word of this article and I will say so at length, with reasons.</p></div></section>`;
    const out = extractPage(chrome(body), URL, { markdown: true });
    expect(out.text).toContain('Paragraph 5 of a long enough article');
    for (const output of [out.text, out.markdown!]) expect(output).not.toMatch(/Share on X|Sign up to our newsletter|A related story|I disagree/);
  });

  it('ends the text at a "Comments" heading in a box of its own', () => {
    const body =
      `<div class="entry">${article(5)}<div class="commentform"><h2 id="comments">Comments</h2></div>` +
      `<div class="commentbody"><p>Recommended! I took the course last year and it was very good, with a nice focus on proofs.</p></div></div>`;
    const out = extractPage(chrome(body), URL);
    expect(out.text).toContain('Paragraph 4 of a long enough');
    expect(out.text).not.toMatch(/Recommended! I took the course/);
  });

  it('gives a paragraph the article has twice (a hidden teaser copy and the text) once', () => {
    const repeated = 'Home prices in the second quarter rose from the year-ago period for the first time since 2007, the index shows.';
    const body = `<div class="teaser"><p>${repeated}</p></div><div class="story"><p>${repeated}</p>${article(5)}<p>Short line.</p><p>Short line.</p></div>`;
    const out = extractPage(chrome(body), URL);
    expect(out.text.split(repeated).length - 1).toBe(1);
    expect(out.text).toContain('Paragraph 4 of a long enough');
    expect(out.text.split('Short line.').length - 1).toBe(2);
    // A paragraph inside an inline element: its box is no copy of it.
    const wrapped = `<div class="story"><span class="wrap"><p>${repeated}</p></span>${article(5)}</div>`;
    expect(extractPage(chrome(wrapped), URL).text).toContain(repeated);
  });

  it('ends the text at a "Comments" heading', () => {
    const body = `<div class="post">${article(5)}<h2>12 Comments</h2><div><p>First! What a wonderful post this is, thank you so much for writing it down.</p></div></div>`;
    const out = extractPage(chrome(body), URL);
    expect(out.text).toContain('Paragraph 4 of a long enough');
    expect(out.text).not.toMatch(/12 Comments|What a wonderful post/);
  });

  it('reads CMS taxonomy classes and heading slugs as no furniture', () => {
    // WordPress puts the post's tags, categories and author into its classes; documentation
    // generators give sections the slug of their heading as id.
    const post =
      `<div class="post hentry tag-cookie-recipes category-social-media author-jane"><p>A short post about baking dog treats with pumpkin and flax seed, in one paragraph.</p></div>` +
      `<div class="section" id="sharing-with-a-single-developer"><p>How to share a repository with one other developer, step by step.</p></div>`;
    const out = extractPage(chrome(post), URL);
    expect(out.text).toContain('baking dog treats');
    expect(out.text).toContain('share a repository with one other developer');
  });

  it('keeps a layout wrapper named like furniture when it holds the page', () => {
    const out = extractPage(page(`<div class="layout has-sidebar"><h1>Title</h1>${article(6)}</div>`), URL);
    expect(out.text).toContain('Paragraph 0 of a long enough');
  });

  it("prefers the block the page's JSON-LD articleBody names", () => {
    const story = 'Council approves the new budget for schools, parks and roads after a long debate on Tuesday evening.';
    const head = `<script type="application/ld+json">${JSON.stringify({ '@type': 'NewsArticle', headline: 'Budget', articleBody: `${story} ${'The vote was close. '.repeat(10)}` })}</script>`;
    const html = page(`<div class="about"><p>Our newsroom has covered local politics since 1950, with reporters in every district of the city.</p></div><div><p>${story}</p></div>`, head);
    const out = extractPage(html, URL);
    expect(out.text).toBe(story);
  });
  it('takes the short post under the heading the title names, not the heavier about box beside it', () => {
    const post = 'No matter how long I stare at this drawing, I still cannot believe it is pencil on paper. Mind blown, truly.';
    const about = 'This blog is about making things: art, craft, engineering and the good old can-do spirit. Makers of all stripes are welcome here, whatever their enthusiasms, and are encouraged to join the conversation. ';
    const html = page(
      `<div id="main"><div class="widget Blog"><h2>Monday</h2><div class="post"><h3 class="post-title"><a href="/p">This is Not a Photograph</a></h3><div><p>${post}</p></div></div></div></div>` +
        `<div id="sidebar"><div class="profile"><h2>About this blog</h2><p>${about.repeat(4)}</p></div></div>`,
      '<title>Dude Blog: This is Not a Photograph</title>',
    );
    const out = extractPage(html, URL);
    expect(out.text).toContain(post);
    expect(out.text).not.toContain('Makers of all stripes');
  });
  it('drops the labels a removed related box leaves at the end, not the last items of a list', () => {
    const body = `<article><h1>Long read</h1>${article(6)}<h2>You might also like:</h2><div><p>Mehr zum Thema</p></div></article>`;
    const out = extractPage(chrome(body), URL);
    expect(out.text).toContain('Paragraph 5 of a long enough article');
    expect(out.text).not.toMatch(/You might also like|Mehr zum Thema/);
    const withList = `<article><h1>Long read</h1>${article(6)}<ul><li>Freshly fried fish cakes</li><li>Local ingredients</li></ul></article>`;
    expect(extractPage(chrome(withList), URL).text).toMatch(/Freshly fried fish cakes\nLocal ingredients$/);
  });
  it("drops the site's copyright line left at the end with the labels before it, not a sentence that mentions copyright", () => {
    const body =
      `<article><h1>Long read</h1>${article(6)}<div class="bottom"><p>MOST POPULAR</p>` +
      `<p>©1999-2012 Example Media, Inc. All Rights Reserved. Terms of Use &amp; Privacy Policy</p></div></article>`;
    const out = extractPage(chrome(body), URL);
    expect(out.text).toContain('Paragraph 5 of a long enough article');
    expect(out.text).not.toMatch(/All Rights Reserved|MOST POPULAR/);
    const mention = `<article><h1>Long read</h1>${article(6)}<p>The court ruled that the copyright of the photographs stays with the agency that took them.</p></article>`;
    expect(extractPage(chrome(mention), URL).text).toContain('the copyright of the photographs stays');
  });
  it('drops the tag line at the end of the article, not a sentence with links', () => {
    const ending = (last: string) => {
      const document = parseDocument(`<html><body><div id="text">${article(3)}${last}</div></body></html>`);
      const root = document.getElementById('text')!;
      trimTrailingLabels(root);
      return plainText(root);
    };
    const tags = '<p class="tags-line">Tags: <a href="/tag/mars">Mars</a>, <a href="/tag/gale-crater">Gale crater</a>, <a href="/tag/rover">rover</a>, <a href="/tag/jpl">JPL</a>, <a href="/tag/mount-sharp">Mount Sharp</a>, <a href="/tag/panorama">panorama</a></p>';
    expect(ending(tags)).toMatch(/with several sentences\.$/);
    const credit = '<p>This post was <a href="/contributors">contributed</a> by <a href="https://megan.example">Megan Ramirez</a>.</p>';
    expect(ending(credit)).toMatch(/contributed by Megan Ramirez\.$/);
    const headlines = '<p>Read next: <a href="/a">The council votes on the new parks budget tonight</a>, <a href="/b">Rain again</a></p>';
    expect(ending(headlines)).toMatch(/Read next/);
  });
  it("keeps a paragraph that is a linked sentence of the article or a bare call, not a labelled 'read also' line", () => {
    const cleaned = (line: string) => {
      const root = parseDocument(`<html><body><div id="text">${article(3)}${line}</div></body></html>`).getElementById('text')!;
      cleanArticle(root);
      return plainText(root);
    };
    const own = `<p><a href="https://video.example/42">This week's new episode is a really fun, quick and silly party game</a>.</p>`;
    expect(cleaned(own)).toContain("This week's new episode is a really fun");
    const readAlso = `<p>Read also: <a href="/other">The council voted on the parks budget again last night.</a></p>`;
    expect(cleaned(readAlso)).not.toContain('Read also');
    const teaser = `<p>MORE: <a href="/other">The council votes on the parks budget again tonight</a></p>`;
    expect(cleaned(teaser)).not.toContain('The council votes');
    // Recall first: a bare link line is as often the author's call inside the text as another page's headline.
    const call = `<p><a href="https://twitter.com/reporter">Follow our reporter on Twitter for live updates</a></p>`;
    expect(cleaned(call)).toContain('Follow our reporter on Twitter for live updates');
  });
  it('puts the standfirst that sits with the heading in front of the article body, in text and markdown', () => {
    const dek = 'The city will spend twice as much on parks next year, the council decided after a long night.';
    const body =
      `<header><h1>Council doubles the parks budget</h1><p class="byline">By A. Reporter</p><p class="deck">${dek}</p></header>` +
      `<div class="article-body">${article(6)}</div>`;
    const out = extractPage(chrome(body).replace('<title>Story</title>', '<title>Council doubles the parks budget | Daily</title>'), URL, { markdown: true });
    expect(out.text.startsWith(dek)).toBe(true);
    expect(out.text).toContain('Paragraph 5 of a long enough article');
    expect(out.markdown).toContain(dek);
    // A blurb under a heading that is only the site's name is no standfirst.
    const blog = page(`<header><h1>Daily Example</h1><p>${dek}</p></header><div class="article-body">${article(6)}</div>`, '<title>A post about parks | Daily Example</title>');
    expect(extractPage(blog, URL).text).not.toContain(dek);
  });
  it("keeps a blog's sidebar out even when it outweighs the short post the title names", () => {
    const post = 'Five posts worth reading this week, picked from everything we saw, with a short note on each one of them.';
    const about = 'I have written advertising copy in this city for nineteen years, and here I say what I think of it, at length and often. ';
    const html = page(
      `<div id="content"><div class="post"><h3>Top five posts of the week</h3><div class="post-body"><p>${post}</p></div></div>` +
        `<div id="sidebar"><div class="profile"><h2>About me</h2><p>${about.repeat(12)}</p></div></div></div>`,
      '<title>Copy blog: Top five posts of the week</title>',
    );
    const out = extractPage(html, URL);
    expect(out.text).toContain(post);
    expect(out.text).not.toContain('nineteen years');
  });
  it("takes the page's article body, not Readability's article that pads it with recent posts and a category list", () => {
    const recent = Array.from({ length: 5 }, (_, i) => `<li><a href="/post/${i}">An earlier post number ${i} on the region</a></li>`).join('');
    const categories = Array.from({ length: 40 }, (_, i) => `<li><a href="/category/${i}">Topic number ${i}</a> (${i + 3})</li>`).join('');
    const html = page(
      `<div id="content"><article><h1>A post on the region</h1>${article(4)}</article>` +
        `<p>About this blog: leading voices on the region examine its growing importance in global affairs, every week.</p>` +
        `<h3>Recent posts</h3><ul>${recent}</ul><h3>Categories</h3><ul>${categories}</ul></div>`,
      '<title>A post on the region</title>',
    );
    const out = extractPage(html, URL);
    expect(out.text).toContain('Paragraph 3 of a long enough article body');
    expect(out.text).not.toMatch(/Topic number|An earlier post|About this blog/);
  });
  it("takes Readability's short post over the whole page when no box outweighs the site's blurbs around it", () => {
    const post =
      'Japan is often associated with robots, and they are probably more advanced in this field than any other nation. What is more uncommon is to see cold-hearted robots practice the delicate art of calligraphy. You can see a few of their works in this post.';
    const html = page(
      `<div id="header"><h1>Design Daily, design inspiration and resources</h1></div>` +
        `<div id="page"><div class="post"><h2>Calligraphy-making robot</h2><div class="postcontent"><p>${post}</p></div></div>` +
        `<div id="subscribe"><strong>Liked this post?</strong><br><br>Get more by subscribing to the <a href="/feed">rss feed</a>.</div></div>` +
        `<div id="realfooter"><div class="about">This site is proudly hosted by <a href="/host">a web host</a>, who also provide European web hosting at a fair price.<br>` +
        `This blog is published by <a href="/me">Jane Doe</a>, a graphic and web designer from Switzerland, who writes about design.</div></div>`,
      '<title>Calligraphy-making robot</title>',
    );
    expect(extractPage(html, URL).text).toBe(post);
  });
  it("takes Readability's short article when it is the region and more (the headline the region left in the post's header)", () => {
    const post = 'Take a visit inside the leather works studio of a maker in Massachusetts. He gives us a very honest view of his business and what it takes to remain locally made, all day.';
    const html = page(
      `<div id="main"><div class="post"><div class="post-header"><h2>Inside the leather works studio of a Massachusetts maker</h2></div>` +
        `<div class="entry-content"><p>${post}</p></div></div></div>` +
        `<div id="sidebar"><ul><li><a href="/archive/1">Archive one</a></li><li><a href="/archive/2">Archive two</a></li></ul></div>`,
      '<title>A leather blog</title>',
    );
    const out = extractPage(html, URL);
    expect(out.contentSource).toBe('readability');
    expect(out.text).toBe(`Inside the leather works studio of a Massachusetts maker\n\n${post}`);
  });
  it("keeps the region when Readability's short article adds only scraps to it (a category, a date, a count of comments)", () => {
    const post = 'Take a visit inside the leather works studio of a maker in Massachusetts. He gives us a very honest view of his business and what it takes to remain locally made, all day.';
    const html = page(
      `<div id="main"><div class="box"><h2>Studio visit</h2><p>Accessories</p><p>November 13, 2012</p><p>3 comments</p><div class="text"><p>${post}</p></div></div></div>`,
      '<title>A leather blog</title>',
    );
    const out = extractPage(html, URL);
    expect(out.contentSource).toBe('region');
    expect(out.text).toBe(post);
  });
  it("weighs the region as it is given, without the second copy of the article that outweighed Readability's article", () => {
    const notice = (what: string) =>
      `<p>${what} of this copy are for your personal and non commercial use only and to order copies for your colleagues and clients or customers use the order tool at the bottom of any story or visit our desk online</p>`;
    const html = page(
      `<div id="wrap"><div class="supplemental">${notice('Reprints')}${notice('Licensing')}${notice('Permissions')}</div><div class="b"><div class="story">${article(4)}</div></div>` +
        `<div class="c"><div class="d"><div class="excerpt"><h3>Article excerpt</h3>${article(4)}</div></div></div></div>`,
      '<title>Home prices</title>',
    );
    const out = extractPage(html, URL);
    expect(out.text).toContain('Paragraph 3 of a long enough article body');
    expect(out.text).not.toMatch(/Reprints of this copy|Article excerpt/);
  });
});
