import type { PageMeta } from './types.js';
import { absoluteUrl } from './urls.js';

/** Readability's view of the page, when it ran (its precedence rules for title and byline). */
export interface ReadabilityMeta {
  title?: string | null;
  byline?: string | null;
  excerpt?: string | null;
  siteName?: string | null;
  publishedTime?: string | null;
  lang?: string | null;
}

/** What the page says about itself, read before Readability mutates the document (it removes scripts). */
export interface MetaSources {
  /** `<meta name|property>` contents by lowercased name; the first occurrence wins. */
  tags: Map<string, string>;
  /** `<meta itemprop>` contents (microdata), consulted only after the named tags. */
  itemprops: Map<string, string>;
  jsonLd: unknown[];
  /** `<title>` with the site-name part cut off, as Readability does. */
  documentTitle?: string;
  lang?: string;
  canonicalHref?: string;
  iconHref?: string;
}

type JsonObject = Record<string, unknown>;

const clean = (s: unknown): string | undefined => {
  if (typeof s !== 'string') return undefined;
  const v = s.replace(/\s+/g, ' ').trim();
  return v ? v : undefined;
};

function readMetaTags(document: Document): Pick<MetaSources, 'tags' | 'itemprops'> {
  const tags = new Map<string, string>();
  const itemprops = new Map<string, string>();
  for (const m of Array.from(document.querySelectorAll('meta[content]'))) {
    const content = clean(m.getAttribute('content'));
    if (!content) continue;
    // `property` may hold several space-separated names (RDFa): each one counts.
    const names = `${m.getAttribute('property') ?? ''} ${m.getAttribute('name') ?? ''}`.trim().toLowerCase().split(/\s+/);
    for (const name of names) if (name && !tags.has(name)) tags.set(name, content);
    const itemprop = m.getAttribute('itemprop')?.trim().toLowerCase();
    if (itemprop && !itemprops.has(itemprop)) itemprops.set(itemprop, content);
  }
  return { tags, itemprops };
}

function prefixed(map: Map<string, string>, prefix: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, v] of map) if (k.startsWith(prefix) && k.length > prefix.length) out[k.slice(prefix.length)] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Parses one JSON-LD block, tolerating the usual damage: CDATA or comment wrappers, raw control characters. */
function parseJsonLdBlock(raw: string): unknown {
  // `//<![CDATA[ … //]]>` (the JavaScript-comment form WordPress plugins write) included.
  const body = raw.replace(/^\s*(?:\/\/\s*)?(?:<!\[CDATA\[|<!--)|(?:\/\/\s*)?(?:\]\]>|-->)\s*$/g, '').trim();
  if (!body) return undefined;
  try {
    return JSON.parse(body);
  } catch {
    // Literal newlines and tabs inside strings are invalid JSON but common; as spaces they are harmless.
    return JSON.parse(body.replace(/[\u0000-\u001f]+/g, ' '));
  }
}

export function parseJsonLd(document: Document): unknown[] {
  const blocks: unknown[] = [];
  for (const s of Array.from(document.querySelectorAll('script[type]'))) {
    if (!/^\s*application\/ld\+json\s*$/i.test(s.getAttribute('type') ?? '')) continue;
    try {
      const parsed = parseJsonLdBlock(s.textContent ?? '');
      if (parsed !== undefined) blocks.push(parsed);
    } catch {
      // Broken JSON-LD is common in the wild; it is skipped, never fatal.
    }
  }
  return blocks;
}

/** Types Readability accepts as an article (its `jsonLdArticleTypes`), plus web pages in general. */
const ARTICLE_TYPE = /Article|BlogPosting|LiveBlogPosting|NewsArticle|Report|ScholarlyArticle|SocialMediaPosting|TechArticle|WebPage|Posting|Blog|Recipe/i;

function jsonLdArticle(blocks: unknown[]): JsonObject | undefined {
  const flat: unknown[] = [];
  const add = (b: unknown) => {
    if (Array.isArray(b)) b.forEach(add);
    else if (b && typeof b === 'object') {
      const graph = (b as JsonObject)['@graph'];
      if (Array.isArray(graph)) graph.forEach(add);
      else flat.push(b);
    }
  };
  blocks.forEach(add);
  const typeOf = (x: unknown) => {
    const t = (x as JsonObject)['@type'];
    return Array.isArray(t) ? t.join(' ') : String(t ?? '');
  };
  // A real article beats a generic WebPage node of the same graph.
  return (flat.find((x) => /Article|Posting|Report/i.test(typeOf(x))) ?? flat.find((x) => ARTICLE_TYPE.test(typeOf(x)))) as JsonObject | undefined;
}

/**
 * The articleBody of the page's JSON-LD article, when it is long enough to say where the text is
 * (a teaser-length one says little, and some sites put only the first paragraph there).
 */
export function jsonLdArticleBody(blocks: unknown[]): string | undefined {
  const body = jsonLdArticle(blocks)?.articleBody;
  return typeof body === 'string' && body.length >= 200 ? body : undefined;
}

function personName(value: unknown): string | undefined {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(personName).filter(Boolean).join(', ') || undefined;
  if (value && typeof value === 'object') return personName((value as JsonObject).name);
  return undefined;
}

const wordCount = (s: string) => s.split(/\s+/).length;

/**
 * The `<title>` without its site-name part ("Story - The Site" gives "Story"), by the rules
 * Readability applies, so the title matches Readability's even when Readability finds no article.
 */
function cleanDocumentTitle(document: Document): string | undefined {
  const original = clean(document.querySelector('title')?.textContent);
  if (!original) return undefined;
  let title = original;
  let hierarchical = false;
  if (/ [|\-\\/>»] /.test(title)) {
    hierarchical = / [\\/>»] /.test(title);
    const separators = Array.from(original.matchAll(/ [|\-\\/>»] /g));
    title = original.substring(0, separators[separators.length - 1].index);
    if (wordCount(title) < 3) title = original.replace(/^[^|\-\\/>»]*[|\-\\/>»]/, '');
  } else if (title.includes(': ')) {
    const headings = Array.from(document.querySelectorAll('h1, h2')).map((h) => clean(h.textContent));
    if (!headings.includes(title)) {
      title = original.substring(original.lastIndexOf(':') + 1);
      if (wordCount(title) < 3) title = original.substring(original.indexOf(':') + 1);
      else if (wordCount(original.substring(0, original.indexOf(':'))) > 5) title = original;
    }
  } else if (title.length > 150 || title.length < 15) {
    const h1s = document.querySelectorAll('h1');
    if (h1s.length === 1) title = clean(h1s[0].textContent) ?? title;
  }
  title = clean(title) ?? original;
  const words = wordCount(title);
  if (words <= 4 && (!hierarchical || words !== wordCount(original.replace(/[|\-\\/>»]+/g, '')) - 1)) title = original;
  return title;
}

export function readMetaSources(document: Document): MetaSources {
  const iconLink =
    document.querySelector('link[rel~="icon" i][href]') ?? document.querySelector('link[rel~="apple-touch-icon" i][href]');
  return {
    ...readMetaTags(document),
    jsonLd: parseJsonLd(document),
    documentTitle: cleanDocumentTitle(document),
    lang: clean(document.documentElement?.getAttribute('lang')) ?? clean(document.documentElement?.getAttribute('xml:lang')),
    canonicalHref: document.querySelector('link[rel~="canonical" i][href]')?.getAttribute('href') ?? undefined,
    iconHref: iconLink?.getAttribute('href') ?? undefined,
  };
}

/**
 * Metadata per API-DECISIONS: title and description always, the rest when the page has it.
 * Readability's title, byline, site name and date win when it ran (its precedence is the one
 * users know from reader views); otherwise the same sources are read in the same order here.
 * `fallbackExcerpt` is the first paragraph of the extracted text, for pages that describe
 * themselves nowhere.
 */
export function buildMeta(sources: MetaSources, baseUrl: string, readability: ReadabilityMeta | null, fallbackExcerpt: string): PageMeta {
  const m = sources.tags;
  const ip = sources.itemprops;
  const article = jsonLdArticle(sources.jsonLd);
  const title =
    clean(readability?.title) ??
    clean(article?.name) ??
    clean(article?.headline) ??
    m.get('dc:title') ??
    m.get('dcterm:title') ??
    m.get('og:title') ??
    m.get('title') ??
    m.get('twitter:title') ??
    m.get('parsely-title') ??
    sources.documentTitle ??
    ip.get('headline') ??
    ip.get('name') ??
    '';
  const description =
    m.get('description') ??
    m.get('og:description') ??
    m.get('twitter:description') ??
    clean(article?.description) ??
    m.get('dc:description') ??
    ip.get('description') ??
    clean(readability?.excerpt) ??
    fallbackExcerpt;
  const meta: PageMeta = { title, description };

  const lang = sources.lang ?? m.get('content-language') ?? m.get('og:locale') ?? clean(readability?.lang);
  if (lang) meta.language = lang;
  const canonical = absoluteUrl(sources.canonicalHref, baseUrl) ?? absoluteUrl(m.get('og:url'), baseUrl);
  if (canonical) meta.canonical_url = canonical;
  const site = clean(readability?.siteName) ?? m.get('og:site_name') ?? personName((article?.publisher as JsonObject | undefined)?.name) ?? m.get('application-name');
  if (site) meta.site_name = site;
  // article:author is often a profile URL, not a name.
  const articleAuthor = m.get('article:author');
  const author =
    clean(readability?.byline) ??
    personName(article?.author) ??
    m.get('author') ??
    m.get('dc:creator') ??
    m.get('parsely-author') ??
    (articleAuthor && !/^https?:\/\//i.test(articleAuthor) ? articleAuthor : undefined) ??
    ip.get('author');
  if (author) meta.author = author;
  const published =
    clean(readability?.publishedTime) ??
    m.get('article:published_time') ??
    clean(article?.datePublished) ??
    m.get('parsely-pub-date') ??
    m.get('date') ??
    m.get('dc:date') ??
    m.get('dc.date') ??
    ip.get('datepublished');
  if (published) meta.published_time = published;
  const modified = m.get('article:modified_time') ?? m.get('og:updated_time') ?? clean(article?.dateModified) ?? ip.get('datemodified');
  if (modified) meta.modified_time = modified;
  const keywords = m.get('keywords') ?? m.get('news_keywords');
  if (keywords) {
    const list = keywords.split(/[,;]/).map((k) => k.trim()).filter(Boolean);
    if (list.length) meta.keywords = [...new Set(list)];
  }
  const favicon = absoluteUrl(sources.iconHref, baseUrl);
  if (favicon) meta.favicon = favicon;
  const ogImage = absoluteUrl(m.get('og:image') ?? m.get('og:image:url') ?? m.get('og:image:secure_url') ?? m.get('twitter:image'), baseUrl);
  if (ogImage) meta.og_image = ogImage;
  const og = prefixed(m, 'og:');
  if (og) meta.og = og;
  const twitter = prefixed(m, 'twitter:');
  if (twitter) meta.twitter = twitter;
  if (sources.jsonLd.length) meta.json_ld = sources.jsonLd;
  return meta;
}
