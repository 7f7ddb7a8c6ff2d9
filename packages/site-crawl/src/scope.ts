/** Why a discovered URL is not crawled; the keys of a crawl's `counts.skipped_by`. */
export type SkipReason =
  | 'robots'
  | 'other_host'
  | 'excluded_path'
  | 'not_included_path'
  | 'depth'
  | 'file'
  | 'duplicate'
  | 'not_html'
  | 'url_cap'
  | 'redirect_out_of_scope';

export interface ScopeOptions {
  /** Regular expressions (JavaScript syntax) a path must match one of; none: every path. */
  includePaths?: string[];
  /** Regular expressions a path must match none of. */
  excludePaths?: string[];
  allowSubdomains?: boolean;
  allowExternal?: boolean;
  /** Link hops from the start URL (or a sitemap's URL, depth 0); undefined: no limit. */
  maxDepth?: number;
}

/**
 * Links to files no crawl reads as a page: skipped when discovered, without a request (a link
 * without such an extension that serves one anyway is skipped when its answer's type shows it).
 */
const FILE_EXTENSION = /\.(jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|css|js|mjs|json|xml|rss|atom|zip|gz|tgz|bz2|xz|7z|rar|tar|pdf|docx?|xlsx?|pptx?|odt|ods|mp3|mp4|m4a|wav|ogg|webm|mov|avi|mkv|woff2?|ttf|otf|eot|exe|dmg|msi|apk|iso|bin)$/i;

/**
 * A pattern whose repeated group itself holds a repetition (`(a+)+`, `(\w*)*`) can take
 * exponential time on a path that almost matches: refused (star height above one).
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

/** Why a path pattern cannot be used, or null: it compiles and has no nested repetition. */
export function pathPatternProblem(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > 500) return 'must be a regular expression of 1 to 500 characters';
  if (NESTED_QUANTIFIER.test(pattern)) return 'must not repeat a group that itself repeats (such as (a+)+), which can take exponential time';
  try {
    new RegExp(pattern);
  } catch (err) {
    return `is not a valid regular expression (${(err as Error).message})`;
  }
  return null;
}

/** `www.example.com` and `example.com` are one site. */
const siteHost = (hostname: string) => hostname.toLowerCase().replace(/^www\./, '');

/**
 * Which discovered URLs a crawl follows: the start URL's host (with or without `www.`) unless
 * subdomains or other hosts are allowed, paths by the include and exclude patterns (tested on the
 * path, unanchored, as Firecrawl does), link depth, and no links to files.
 */
export class CrawlScope {
  private readonly host: string;
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];

  constructor(
    startUrl: string,
    private readonly options: ScopeOptions,
  ) {
    this.host = siteHost(new URL(startUrl).hostname);
    this.include = (options.includePaths ?? []).map((p) => new RegExp(p));
    this.exclude = (options.excludePaths ?? []).map((p) => new RegExp(p));
  }

  /** Host rules only: where a redirect may lead. */
  hostProblem(url: URL): SkipReason | null {
    if (this.options.allowExternal) return null;
    const host = siteHost(url.hostname);
    if (host === this.host) return null;
    if (this.options.allowSubdomains && host.endsWith(`.${this.host}`)) return null;
    return 'other_host';
  }

  /** Null when the URL is to be crawled at `depth`, else why not. */
  verdict(url: string, depth: number): SkipReason | null {
    const parsed = new URL(url);
    const host = this.hostProblem(parsed);
    if (host) return host;
    const path = parsed.pathname;
    if (FILE_EXTENSION.test(path)) return 'file';
    if (this.exclude.some((p) => p.test(path))) return 'excluded_path';
    if (this.include.length > 0 && !this.include.some((p) => p.test(path))) return 'not_included_path';
    if (this.options.maxDepth !== undefined && depth > this.options.maxDepth) return 'depth';
    return null;
  }
}
