import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { CrawlScope, fetchableUrl, HostThrottle, normalizeUrl, parseSitemap, pathPatternProblem, RobotsRules, urlKey } from '../src/index.js';

describe('normalizeUrl', () => {
  it('gives every spelling of a page one form', () => {
    const spellings = [
      'http://Example.COM/docs/a',
      'HTTP://example.com:80/docs/a/',
      'http://example.com/docs/a/index.html#top',
      'http://example.com/docs//a?utm_source=x&utm_medium=y',
      'http://example.com/docs/b/../a',
      'http://user:pw@example.com/%64ocs/a',
    ];
    expect(new Set(spellings.map((u) => normalizeUrl(u)))).toEqual(new Set(['http://example.com/docs/a']));
    expect(normalizeUrl('https://example.com:443/')).toBe('https://example.com/');
    expect(normalizeUrl('http://example.com/p?b=2&a=1&gclid=z')).toBe(normalizeUrl('http://example.com/p?a=1&b=2'));
    expect(normalizeUrl('http://example.com/p?a=1', { ignoreQuery: true })).toBe('http://example.com/p');
    expect(normalizeUrl('mailto:a@example.com')).toBeNull();
    expect(normalizeUrl('not a url')).toBeNull();
    // Different pages stay different.
    expect(normalizeUrl('http://example.com/p?a=1')).not.toBe(normalizeUrl('http://example.com/p?a=2'));
    expect(normalizeUrl('https://example.com/a')).not.toBe(normalizeUrl('http://example.com/a'));
  });

  it('fetches the spelling the link wrote, without what never changes the page', () => {
    expect(fetchableUrl('http://example.com/docs/?utm_source=x#frag')).toBe('http://example.com/docs/');
    expect(urlKey('http://example.com/')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('CrawlScope', () => {
  const scope = new CrawlScope('https://www.example.com/docs/', { includePaths: ['^/docs/'], excludePaths: ['/private'], maxDepth: 2 });
  it('follows the same site, the paths the patterns allow, to max_depth, and no files', () => {
    expect(scope.verdict('https://example.com/docs/a', 1)).toBeNull();
    expect(scope.verdict('https://other.example.org/docs/a', 1)).toBe('other_host');
    expect(scope.verdict('https://blog.example.com/docs/a', 1)).toBe('other_host');
    expect(scope.verdict('https://example.com/blog/a', 1)).toBe('not_included_path');
    expect(scope.verdict('https://example.com/docs/private/a', 1)).toBe('excluded_path');
    expect(scope.verdict('https://example.com/docs/a', 3)).toBe('depth');
    expect(scope.verdict('https://example.com/docs/a.pdf', 1)).toBe('file');
    expect(new CrawlScope('https://example.com/', { allowSubdomains: true }).verdict('https://blog.example.com/', 1)).toBeNull();
    expect(new CrawlScope('https://example.com/', { allowExternal: true }).verdict('https://other.org/', 1)).toBeNull();
  });

  it('refuses patterns that could take exponential time or do not compile', () => {
    expect(pathPatternProblem('^/docs/.*')).toBeNull();
    expect(pathPatternProblem('(a+)+$')).toMatch(/must not repeat a group/);
    expect(pathPatternProblem('([a-z]*)*')).toMatch(/must not repeat a group/);
    expect(pathPatternProblem('(unclosed')).toMatch(/is not a valid regular expression/);
  });
});

describe('RobotsRules', () => {
  const rules = new RobotsRules('https://example.com', {
    kind: 'rules',
    text: 'User-agent: *\nDisallow: /\n\nUser-agent: GleanerBot\nAllow: /docs/\nDisallow: /docs/private$\nDisallow: /tmp\nCrawl-delay: 2\nSitemap: https://example.com/sm.xml\n',
  });
  it('reads the group for our product token, longest match first, with $', () => {
    expect(rules.refusal('https://example.com/docs/a')).toBeNull();
    expect(rules.refusal('https://example.com/docs/private')).toMatch(/robots\.txt disallows it \(line 6\)/);
    expect(rules.refusal('https://example.com/docs/private/x')).toBeNull();
    expect(rules.refusal('https://example.com/tmp/x')).toMatch(/disallows/);
    expect(rules.crawlDelayMs).toBe(2_000);
    expect(rules.sitemaps).toEqual(['https://example.com/sm.xml']);
  });
  it('allows all on a 4xx answer, and disallows all when robots.txt is unreachable', () => {
    expect(new RobotsRules('https://example.com', { kind: 'allow-all', note: '404' }).refusal('https://example.com/x')).toBeNull();
    expect(new RobotsRules('https://example.com', { kind: 'disallow-all', note: 'robots.txt could not be read (HTTP 503)' }).refusal('https://example.com/x')).toBe('robots.txt could not be read (HTTP 503)');
  });
});

describe('parseSitemap', () => {
  it('reads url sets, index files, namespaced tags, entities, CDATA and the text form', () => {
    expect(parseSitemap('<urlset><url><loc> https://e.com/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[https://e.com/b]]></loc></url></urlset>')).toEqual({ kind: 'urlset', locs: ['https://e.com/a?x=1&y=2', 'https://e.com/b'] });
    expect(parseSitemap('<?xml version="1.0"?><sm:sitemapindex><sm:sitemap><sm:loc>https://e.com/s1.xml.gz</sm:loc></sm:sitemap></sm:sitemapindex>')).toEqual({ kind: 'index', locs: ['https://e.com/s1.xml.gz'] });
    expect(parseSitemap('https://e.com/a\nhttps://e.com/b\n')).toEqual({ kind: 'urlset', locs: ['https://e.com/a', 'https://e.com/b'] });
    expect(gzipSync('x').subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});

describe('HostThrottle', () => {
  it('holds a host to max_concurrency and Crawl-delay, and adapts its delay to latency and refusals', async () => {
    const t = new HostThrottle({ maxConcurrency: 2, minDelayMs: 0, maxDelayMs: 10_000 });
    const a = await t.acquire('h');
    const b = await t.acquire('h');
    let third = false;
    const c = t.acquire('h').then((release) => ((third = true), release));
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false); // two at once at most
    a();
    (await c)();
    b();
    // Latency 400 ms at concurrency 2: the delay moves to 200 ms; an error answer never lowers it.
    t.observe('h', { latencyMs: 400, statusCode: 200 });
    expect(t.delayOf('h')).toBe(200);
    t.observe('h', { latencyMs: 10, statusCode: 500 });
    expect(t.delayOf('h')).toBe(200);
    t.observe('h', { latencyMs: 10, statusCode: 200 });
    expect(t.delayOf('h')).toBe(102.5);
    // A 429 doubles it, at least its Retry-After.
    t.observe('h', { latencyMs: 10, statusCode: 429, retryAfterMs: 3_000 });
    expect(t.delayOf('h')).toBe(3_000);
    // Crawl-delay is a floor.
    t.setCrawlDelay('g', 500);
    t.observe('g', { latencyMs: 10, statusCode: 200 });
    expect(t.delayOf('g')).toBe(500);
    const first = await t.acquire('g');
    first();
    const started = Date.now();
    (await t.acquire('g'))();
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
    t.close();
  });
});
