import type { Job } from 'bullmq';
import type { PageExtraction } from '@gleaner/html-extract';
import type { MapJob } from '@gleaner/queues';
import type { MapLink, MapResult } from '@gleaner/record-views';
import { fetchPage, FetchError } from '@gleaner/safe-fetch';
import { CrawlScope, crawlerUserAgent, fetchableUrl, HostThrottle, hostOf, normalizeUrl, originOf, readSitemaps, RobotsRules, fetchRobotsFile, type RobotsFile } from '@gleaner/site-crawl';
import { JobFailure, runRecordedJob } from '@gleaner/worker-runtime';
import type { ExtractTask } from '../extract-thread.js';
import { scrapeFetchFailure } from '../processors/fetch-failures.js';
import { SCRAPE_MAX_BYTES } from '../processors/read-page.js';
import type { CrawlDeps } from './crawl-deps.js';

/** Link pages a map reads at once (one host: its robots.txt Crawl-delay still spaces them). */
const MAP_CONCURRENCY = 4;
/** A link page's own budget within the map's. */
const MAP_PAGE_TIMEOUT_MS = 10_000;
const MAP_SITEMAP_FILES_MAX = 20;

/**
 * A site's URLs without scraping them (`POST /web-scrapper/map`): its sitemaps (robots.txt
 * `Sitemap:` lines, else /sitemap.xml; index files and gzip followed, bounded), the links of its
 * start page and of up to MAP_MAX_PAGES link pages read breadth first (robots.txt obeyed, titles
 * kept), all filtered like a crawl's, within MAP_DEADLINE_MS. The start URL comes first, then
 * the URLs in the order found; at most `limit`.
 */
export function createMapProcessor(deps: CrawlDeps) {
  return (payload: MapJob, job: Job) =>
    runRecordedJob('map', job, payload.requestId, deps.jobs, async () => {
      const links = await mapSite(deps, payload);
      const result: MapResult = { links };
      return { result };
    });
}

async function mapSite(deps: CrawlDeps, payload: MapJob): Promise<MapLink[]> {
  const { scope: options } = payload;
  const deadline = Date.now() + deps.config.MAP_DEADLINE_MS;
  const fetchOptions = { allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS, userAgent: crawlerUserAgent(deps.config.CRAWLER_INFO_URL) };
  const scope = new CrawlScope(payload.url, options);
  const found = new Map<string, MapLink>();
  const add = (url: string, title?: string) => {
    const normalized = normalizeUrl(url, { ignoreQuery: options.ignoreQuery });
    const fetchable = fetchableUrl(url, { ignoreQuery: options.ignoreQuery });
    if (!normalized || !fetchable) return null;
    const known = found.get(normalized);
    if (known) {
      if (title && !known.title) known.title = title;
      return null;
    }
    if (found.size >= payload.limit) return null;
    const link: MapLink = { url: fetchable, ...(title ? { title } : {}) };
    found.set(normalized, link);
    return normalized;
  };

  const origin = originOf(payload.url);
  let robotsFile: RobotsFile;
  try {
    robotsFile = await fetchRobotsFile(origin, { ...fetchOptions, deadlineMs: Math.min(10_000, deps.config.MAP_DEADLINE_MS) });
  } catch (err) {
    throw scrapeFetchFailure(err);
  }
  const robots = new RobotsRules(origin, robotsFile);

  add(payload.url);
  if (options.sitemap !== 'skip') {
    const roots = robots.sitemaps.length > 0 ? robots.sitemaps : [`${origin}/sitemap.xml`];
    const reading = await readSitemaps(roots, fetchOptions, { maxFiles: MAP_SITEMAP_FILES_MAX, maxUrls: payload.limit * 2, maxFileBytes: 50 * 1024 * 1024 }, deadline);
    for (const url of reading.urls) {
      const normalized = normalizeUrl(url, { ignoreQuery: options.ignoreQuery });
      if (normalized && !scope.verdict(normalized, 0)) add(url);
    }
  }
  if (options.sitemap === 'only') return [...found.values()];

  // The start page and link pages, breadth first, politely: robots.txt, its Crawl-delay, and the throttle.
  const throttle = new HostThrottle({ maxConcurrency: MAP_CONCURRENCY, minDelayMs: 0, maxDelayMs: deps.config.CRAWL_MAX_DELAY_MS });
  throttle.setCrawlDelay(hostOf(payload.url), robots.crawlDelayMs);
  const queue: string[] = [payload.url];
  const visited = new Set<string>([normalizeUrl(payload.url, { ignoreQuery: options.ignoreQuery })!]);
  let pagesRead = 0;
  let startError = null as JobFailure | null;
  const readOne = async (url: string, isStart: boolean) => {
    const release = await throttle.acquire(hostOf(url));
    try {
      const page = await fetchPage(url, { ...fetchOptions, maxBytes: SCRAPE_MAX_BYTES, deadlineMs: Math.max(1_000, Math.min(MAP_PAGE_TIMEOUT_MS, deadline - Date.now())) });
      if (page.kind !== 'html') return;
      const extraction = await deps.extractPool.run<ExtractTask, PageExtraction>({ task: 'page', html: page.body, url: page.finalUrl, markdown: false, budgetMs: 5_000 }, 6_000, undefined, undefined, payload.accountId);
      const title = String(extraction.meta.title ?? '') || undefined;
      const own = normalizeUrl(url, { ignoreQuery: options.ignoreQuery })!;
      const entry = found.get(own);
      if (entry && title && !entry.title) entry.title = title;
      for (const link of extraction.links) {
        if (link.type !== 'internal' && link.type !== 'external') continue;
        const normalized = normalizeUrl(link.url, { ignoreQuery: options.ignoreQuery });
        if (!normalized || scope.verdict(normalized, 0)) continue;
        add(link.url);
        if (!visited.has(normalized) && robots.refusal(link.url) === null && new URL(normalized).origin === origin) {
          visited.add(normalized);
          queue.push(link.url);
        }
      }
    } catch (err) {
      if (isStart) startError = err instanceof FetchError ? scrapeFetchFailure(err) : err instanceof JobFailure ? err : new JobFailure('E008', (err as Error).message, false);
      // A link page that fails is only a page fewer to read links from.
    } finally {
      release();
    }
  };
  // A start page robots.txt refuses is not read: the map is then the sitemaps' URLs.
  if (robots.refusal(payload.url) !== null) queue.length = 0;
  else {
    await readOne(queue.shift()!, true);
    pagesRead++;
  }
  if (startError && found.size <= 1) throw startError;
  while (queue.length > 0 && pagesRead <= deps.config.MAP_MAX_PAGES && Date.now() < deadline && found.size < payload.limit) {
    const wave = queue.splice(0, Math.min(MAP_CONCURRENCY, deps.config.MAP_MAX_PAGES + 1 - pagesRead));
    if (wave.length === 0) break;
    pagesRead += wave.length;
    await Promise.all(wave.map((url) => readOne(url, false)));
  }
  throttle.close();
  return [...found.values()];
}
