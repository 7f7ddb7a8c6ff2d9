import { fetchableUrl, normalizeUrl, originOf, urlKey, type CrawlScope } from '@gleaner/site-crawl';
import { skippedEntry } from '@gleaner/record-views';
import type { CrawlCandidate, CrawlState } from '@gleaner/store';
import type { SiteHosts } from './site-hosts.js';

/** Candidates sent to Redis in one script call (a page can link to thousands of URLs). */
const CHUNK = 1_000;
/** Keys this slice remembers having offered (beyond it, Redis's set still dedupes). */
const SENT_KEYS_MAX = 200_000;

export interface DiscoveryOptions {
  crawlId: string;
  crawls: CrawlState;
  scope: CrawlScope;
  hosts: SiteHosts;
  ignoreQuery: boolean;
  obeyRobots: boolean;
  ttlSeconds: number;
}

/**
 * Offers the URLs a crawl finds (links, sitemaps) to its frontier: each normalised and keyed,
 * judged by the crawl's scope, then by the robots.txt of its origin (a refusal is listed in the
 * results with its reason), and queued or counted as skipped by CrawlState, which keeps each URL
 * once. What this slice already offered is not sent again.
 */
export class Discovery {
  private readonly sent = new Set<string>();

  constructor(private readonly o: DiscoveryOptions) {}

  /** `exempt`: the start URL, crawled whatever the path filters and depth say. Returns how many were queued. */
  async offer(urls: Iterable<string>, depth: number, { exempt = false } = {}): Promise<number> {
    const candidates: CrawlCandidate[] = [];
    for (const url of urls) {
      const normalized = normalizeUrl(url, { ignoreQuery: this.o.ignoreQuery });
      const fetchable = fetchableUrl(url, { ignoreQuery: this.o.ignoreQuery });
      if (!normalized || !fetchable) continue;
      const key = urlKey(normalized);
      if (this.sent.has(key)) continue;
      if (this.sent.size >= SENT_KEYS_MAX) this.sent.clear();
      this.sent.add(key);
      const candidate: CrawlCandidate = { key, url: fetchable, depth };
      const skip = exempt ? null : this.o.scope.verdict(normalized, depth);
      if (skip) {
        candidate.skip = skip;
      } else if (this.o.obeyRobots) {
        const refusal = (await this.o.hosts.rules(originOf(fetchable))).refusal(fetchable);
        if (refusal) {
          candidate.skip = 'robots';
          candidate.listed = JSON.stringify(skippedEntry(fetchable, refusal));
        }
      }
      candidates.push(candidate);
    }
    let queued = 0;
    for (let i = 0; i < candidates.length; i += CHUNK) queued += Math.max(0, await this.o.crawls.discover(this.o.crawlId, candidates.slice(i, i + CHUNK), this.o.ttlSeconds));
    return queued;
  }
}
