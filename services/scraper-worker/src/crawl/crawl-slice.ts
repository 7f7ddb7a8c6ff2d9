import type { Job } from 'bullmq';
import { completedEntry, failedEntry, skippedEntry } from '@gleaner/record-views';
import { crawlSliceJobId, type CrawlJob, type CrawlOptions } from '@gleaner/queues';
import { FetchError, type TransferOptions } from '@gleaner/safe-fetch';
import { CrawlScope, crawlerUserAgent, HostThrottle, hostOf, normalizeUrl, originOf, readSitemaps, urlKey, type SkipReason } from '@gleaner/site-crawl';
import { frontierEntry, hasEnded, RECORD_LIFETIME_SECONDS, type ClaimedPage, type PageSettlement, type RequestRecord } from '@gleaner/store';
import { deferJob, JobFailure } from '@gleaner/worker-runtime';
import { readPage, type ReadPage } from '../processors/read-page.js';
import type { CrawlDeps } from './crawl-deps.js';
import { endCrawl, finalizeCrawl, type CrawlEnd } from './crawl-ending.js';
import { Discovery } from './discovery.js';
import { PageNotices } from './page-notices.js';
import { SiteHosts } from './site-hosts.js';

/** How often the loop looks again when nothing woke it (a cancel, a page to claim). */
const TICK_MS = 250;
/**
 * When a slice's time is up, its pages still being fetched get this long to finish; the rest are
 * stopped and put back at the front of the frontier, where the next slice takes them first.
 */
const DRAIN_MS = 3_000;
/** A slice lasts at least a page's timeout and this margin, so a page taken at its start always has its whole timeout. */
const SLICE_MARGIN_MS = 5_000;
/** A slice that finds another holding its crawl's lease waits (that one is ending, or its worker died). */
const WAIT_FOR_LEASE = { firstMs: 1_000, maxMs: 8_000 };
/** The most sitemap files, and the longest, a crawl's seeding reads. */
const SITEMAP_FILES_MAX = 50;
const SITEMAP_FILE_MAX_BYTES = 50 * 1024 * 1024;
const SITEMAP_READING_MAX_MS = 60_000;

type SliceStatus = { status: 'continued' | 'ended' | 'superseded' };

/** Why a slice's loop stopped: the crawl is over (and how), or the slice's time is up. */
type LoopEnd = 'drained' | 'limit' | 'bytes' | 'time' | 'cancelled' | 'slice-over' | 'lease-lost';

const sleep = (ms: number) => {
  let timer: NodeJS.Timeout;
  const done = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return { done, cancel: () => clearTimeout(timer) };
};

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} KB`);

/**
 * One slice of a crawl or batch (crawlQueue): takes the crawl's lease, puts back pages a dead slice
 * left half done, seeds the frontier on the crawl's first slice, then claims and crawls pages
 * (at most max_concurrency at once, each host throttled) until the crawl is over or the slice's
 * time is up, and either ends the crawl or queues its next slice.
 */
export function createCrawlProcessor(deps: CrawlDeps) {
  return (payload: CrawlJob, job: Job): Promise<SliceStatus> => new CrawlSlice(deps, payload, job).run();
}

class CrawlSlice {
  private readonly id: string;
  private readonly options: CrawlOptions;
  private readonly log;
  /** Aborts every fetch of the slice: the crawl was cancelled, or the slice lost its lease. */
  private readonly stop = new AbortController();
  /** Aborts the fetches still running once the slice's time is up and its drain is over. */
  private readonly drain = new AbortController();
  private readonly fetchSignal = AbortSignal.any([this.stop.signal, this.drain.signal]);
  private stopped: 'cancelled' | 'lease-lost' | null = null;
  private bytesCapReached = false;
  private readonly ttlSeconds: number;
  private readonly fetchOptions: TransferOptions;
  // Set up by work() before any page is crawled.
  private hosts!: SiteHosts;
  private scope!: CrawlScope;
  private discovery!: Discovery;
  private notices!: PageNotices;
  private record!: RequestRecord;

  constructor(
    private readonly deps: CrawlDeps,
    private readonly payload: CrawlJob,
    private readonly job: Job,
  ) {
    this.id = payload.requestId;
    this.options = payload.options;
    this.log = deps.logger.child({ requestId: this.id, family: payload.family, slice: payload.slice });
    this.ttlSeconds = RECORD_LIFETIME_SECONDS[payload.family].fromCreation;
    this.fetchOptions = { allowPrivateNetworks: deps.config.GLEANER_ALLOW_PRIVATE_NETWORKS, userAgent: crawlerUserAgent(deps.config.CRAWLER_INFO_URL) };
  }

  private halt(why: 'cancelled' | 'lease-lost'): void {
    if (this.stopped) return;
    this.stopped = why;
    this.stop.abort(new Error(why));
  }

  async run(): Promise<SliceStatus> {
    const { deps, id } = this;
    const record = await deps.records.get(this.payload.family, id);
    if (!record) {
      this.log.warn('crawl record missing (expired): slice dropped');
      return { status: 'ended' };
    }
    if (hasEnded(record.status)) {
      // Cancelled while no slice ran, or ended by a slice that died before finishing up.
      await finalizeCrawl(deps, record);
      return { status: 'ended' };
    }
    const token = String(this.job.id);
    const leaseMs = deps.config.WORKER_LOCK_DURATION_MS;
    if (!(await deps.crawls.takeLease(id, token, leaseMs))) return deferJob(deps.redis, this.job, WAIT_FOR_LEASE);
    const renewal = setInterval(() => {
      deps.crawls.takeLease(id, token, leaseMs).then(
        (held) => held || this.halt('lease-lost'),
        (e) => this.log.warn('could not renew the crawl lease', { error: (e as Error).message }),
      );
    }, Math.max(200, Math.floor(leaseMs / 3)));
    try {
      if (!(await deps.crawls.enterSlice(id, this.payload.slice))) {
        this.log.info('a later slice of the crawl already ran: this one ends');
        return { status: 'superseded' };
      }
      this.record = record;
      return await this.work();
    } finally {
      clearInterval(renewal);
      await deps.crawls.dropLease(id, token).catch(() => undefined);
    }
  }

  private async work(): Promise<SliceStatus> {
    const { deps, id, options, payload } = this;
    if (this.record.status === 'received') await deps.records.markProcessing(payload.family, id);
    const requeued = await deps.crawls.requeueInFlight(id);
    if (requeued) this.log.warn('pages of a slice that stopped mid-fetch are crawled again', { pages: requeued });
    await deps.crawls.touch(id, this.ttlSeconds);

    const obeyRobots = payload.family === 'crawl';
    const throttleSettings = { maxConcurrency: options.maxConcurrency, minDelayMs: 0, maxDelayMs: deps.config.CRAWL_MAX_DELAY_MS };
    this.hosts = await SiteHosts.load(id, deps.crawls, this.fetchOptions, (learnt) => new HostThrottle(throttleSettings, learnt), this.ttlSeconds, obeyRobots);
    this.scope = new CrawlScope(options.startUrl ?? 'http://batch.invalid/', { ...options, allowExternal: payload.family === 'batch' || options.allowExternal });
    this.discovery = new Discovery({ crawlId: id, crawls: deps.crawls, scope: this.scope, hosts: this.hosts, ignoreQuery: options.ignoreQuery, obeyRobots, ttlSeconds: this.ttlSeconds });
    this.notices = await PageNotices.load(deps, { id, accountId: payload.accountId, family: payload.family, webhook: options.webhook }, deps.config.CRAWL_WEBHOOK_BATCH_PAGES);

    try {
      if (payload.family === 'crawl') {
        const [seeded] = await deps.crawls.notes(id, 'seeded');
        if (!seeded) {
          await this.seed();
          await deps.crawls.setNotes(id, { seeded: 1 });
        }
      }
      const loopEnd = await this.crawlPages();
      await this.hosts.save();
      await this.notices.flush();
      if (loopEnd === 'lease-lost') {
        this.log.warn('the crawl lease was lost (Redis away longer than the lease): another slice carries on');
        return { status: 'superseded' };
      }
      if (loopEnd === 'slice-over') {
        const next = { ...payload, slice: payload.slice + 1 };
        await deps.slices.add(next, crawlSliceJobId(id, next.slice));
        return { status: 'continued' };
      }
      await endCrawl(deps, payload.family, id, await this.endOf(loopEnd));
      return { status: 'ended' };
    } finally {
      this.hosts.throttle.close();
    }
  }

  /** The crawl's first slice: the start URL (whatever the filters say), then the sitemaps' URLs (depth 0). */
  private async seed(): Promise<void> {
    const start = this.options.startUrl!;
    await this.discovery.offer([start], 0, { exempt: true });
    if (this.options.sitemap === 'skip') return;
    const rules = await this.hosts.rules(originOf(start));
    const roots = rules.sitemaps.length > 0 ? rules.sitemaps : [`${originOf(start)}/sitemap.xml`];
    const counters = await this.deps.crawls.counters(this.id);
    const reading = await readSitemaps(roots, this.fetchOptions, { maxFiles: SITEMAP_FILES_MAX, maxUrls: counters?.maxUrls ?? 100_000, maxFileBytes: SITEMAP_FILE_MAX_BYTES }, Date.now() + SITEMAP_READING_MAX_MS);
    const queued = await this.discovery.offer(reading.urls, 0);
    this.log.info('sitemaps read', { files: reading.files, urls: reading.urls.length, queued, truncated: reading.truncated, problems: reading.problems.slice(0, 5) });
  }

  /** Claims and crawls pages until the crawl is over or the slice's time is up. */
  private async crawlPages(): Promise<LoopEnd> {
    const { deps, id, options } = this;
    const pageTimeoutMs = options.page.timeoutMs ?? deps.config.SCRAPER_FETCH_TIMEOUT_MS;
    const sliceEnds = Date.now() + Math.max(deps.config.CRAWL_SLICE_MS, pageTimeoutMs + SLICE_MARGIN_MS);
    const crawlEnds = this.record.createdAt * 1000 + deps.config.CRAWL_MAX_DURATION_MS;
    const active = new Set<Promise<void>>();
    let end: LoopEnd | null = null;
    let ticks = 0;
    while (!end) {
      if (this.stopped) end = this.stopped;
      else if (this.bytesCapReached) end = 'bytes';
      else if (Date.now() >= crawlEnds) end = 'time';
      else if (Date.now() >= sliceEnds || deps.stopping()) end = 'slice-over';
      if (end) break;
      const free = options.maxConcurrency - active.size;
      if (free > 0) {
        const claim = await deps.crawls.claim(id, free, this.ttlSeconds);
        if (claim.cancelled) {
          this.halt('cancelled');
          continue;
        }
        for (const page of claim.pages) {
          const task: Promise<void> = this.crawlPage(page)
            .catch((err) => void this.log.error('crawling a page failed unexpectedly', { url: page.url, error: (err as Error).message }))
            .finally(() => active.delete(task));
          active.add(task);
        }
        if (active.size === 0 && claim.pages.length === 0) {
          // Nothing of this slice is being fetched and nothing more can be claimed. Pages still
          // marked in flight are ones whose settling failed (Redis away): they are crawled again.
          if (claim.inFlight > 0) {
            await deps.crawls.requeueInFlight(id);
            continue;
          }
          if (claim.queued === 0) end = 'drained';
          else if (options.limit !== undefined && claim.claimed >= options.limit) end = 'limit';
          if (end) break;
        }
      } else if (++ticks % 4 === 0 && (await deps.crawls.cancelRequested(id))) {
        this.halt('cancelled');
        continue;
      }
      const tick = sleep(TICK_MS);
      await Promise.race([...active, tick.done]);
      tick.cancel();
    }
    if (end === 'cancelled' || end === 'lease-lost') this.stop.abort(new Error(end));
    if (end === 'slice-over' && active.size > 0) {
      const drained = sleep(DRAIN_MS);
      await Promise.race([Promise.allSettled([...active]), drained.done]);
      drained.cancel();
      this.drain.abort(new Error('the slice is over'));
    }
    await Promise.allSettled([...active]);
    return end;
  }

  /** How the crawl ends, from why the loop stopped. */
  private async endOf(loopEnd: Exclude<LoopEnd, 'slice-over' | 'lease-lost'>): Promise<CrawlEnd> {
    const { deps, id, options, payload } = this;
    const counters = await deps.crawls.counters(id);
    switch (loopEnd) {
      case 'cancelled':
        return { status: 'cancelled', reason: 'cancelled by the caller' };
      case 'limit':
        return { status: 'completed', reason: `the limit of ${options.limit} pages was reached` };
      case 'bytes':
        return { status: 'completed', reason: `the results reached the cap of ${sizeText(counters?.maxBytes ?? 0)} stored for a crawl; it stopped there` };
      case 'time':
        return { status: 'completed', reason: `the crawl reached its time limit of ${Math.round(deps.config.CRAWL_MAX_DURATION_MS / 60_000)} minutes` };
      case 'drained': {
        if (payload.family === 'batch') return { status: 'completed', reason: 'every URL was read' };
        const [startError] = await deps.crawls.notes(id, 'start_error');
        if (startError && (counters?.completed ?? 0) === 0) {
          const m = /^(E\d{3}): ([\s\S]*)$/.exec(startError);
          return { status: 'failed', error: { code: m?.[1] ?? 'E008', message: `the start URL could not be crawled: ${m?.[2] ?? startError}` } };
        }
        if (counters?.urlCapReached) return { status: 'completed', reason: `the crawl stopped discovering URLs at its cap of ${counters.maxUrls}; every page queued before then was crawled` };
        return { status: 'completed', reason: 'every page in scope was crawled' };
      }
    }
  }

  /** Fetches, reads and settles one claimed page, then offers its links. */
  private async crawlPage(page: ClaimedPage): Promise<void> {
    const { deps, id, options, payload } = this;
    const host = hostOf(page.url);
    let release: () => void;
    try {
      release = await this.hosts.throttle.acquire(host, this.fetchSignal);
    } catch {
      await this.settle(page, { kind: 'returned' });
      return;
    }
    let refusedAs: SkipReason | 'loop' | null = null;
    const hops = new Set<string>([page.url]);
    const beforeRedirect = async (to: URL): Promise<string | undefined> => {
      const normalized = normalizeUrl(to.href, { ignoreQuery: options.ignoreQuery });
      if (!normalized) return undefined; // not http(s): the fetch refuses it itself
      if (hops.has(to.href)) {
        refusedAs = 'loop';
        return `the page redirects in a loop (back to ${to.href})`;
      }
      hops.add(to.href);
      if (payload.family === 'crawl' && this.scope.hostProblem(to)) {
        refusedAs = 'redirect_out_of_scope';
        return `redirects to ${to.href}, outside the hosts this crawl follows`;
      }
      if (payload.family === 'crawl') {
        const refusal = (await this.hosts.rules(to.origin)).refusal(to.href);
        if (refusal) {
          refusedAs = 'robots';
          return `redirects to ${to.href}, which ${refusal.replace(/^robots\.txt/, "the site's robots.txt")}`;
        }
      }
      if (await deps.crawls.claimAlias(id, urlKey(normalized), page.key)) {
        refusedAs = 'duplicate';
        return `redirects to ${to.href}, which this crawl already fetched`;
      }
      return undefined;
    };
    let read: ReadPage | undefined;
    let failure: unknown;
    try {
      read = await readPage(deps, {
        requestId: `${id}-${page.key}`,
        accountId: payload.accountId,
        url: page.url,
        options: options.page,
        fetch: { userAgent: this.fetchOptions.userAgent, beforeRedirect, signal: this.fetchSignal },
      });
    } catch (err) {
      failure = err;
    } finally {
      release();
    }
    const fetchError = failure instanceof FetchError ? failure : failure instanceof JobFailure && failure.cause instanceof FetchError ? failure.cause : undefined;
    this.hosts.throttle.observe(host, {
      latencyMs: read?.fetchMs ?? 0,
      statusCode: read ? read.page.statusCode : fetchError?.statusCode,
      retryAfterMs: fetchError?.retryAfterMs,
    });
    const depth = payload.family === 'crawl' ? page.depth : undefined;
    if (read) return this.pageRead(page, read, depth);
    if (this.stopped || this.drain.signal.aborted || fetchError?.kind === 'aborted') return void (await this.settle(page, { kind: 'returned' }));
    if (fetchError?.kind === 'redirect_refused' && refusedAs !== 'loop') {
      return void (await this.settle(page, { kind: 'skipped', reason: refusedAs ?? 'duplicate', entry: JSON.stringify(skippedEntry(page.url, fetchError.message)) }));
    }
    if (fetchError?.kind === 'unsupported_type') {
      return void (await this.settle(page, { kind: 'skipped', reason: 'not_html', entry: JSON.stringify(skippedEntry(page.url, fetchError.message)) }));
    }
    const retryable = fetchError ? fetchError.transient || fetchError.statusCode === 429 : false;
    if (retryable && page.attempt < deps.config.CRAWL_PAGE_RETRIES) {
      return void (await this.settle(page, { kind: 'retry', retryEntry: frontierEntry(page.key, page.depth, page.attempt + 1, page.url) }));
    }
    const error = failure instanceof JobFailure ? `${failure.code}: ${failure.message}` : `E008: ${(failure as Error)?.message ?? 'the page could not be read'}`;
    if (!(failure instanceof JobFailure)) this.log.warn('page failed unexpectedly', { url: page.url, error });
    if (payload.family === 'crawl' && page.depth === 0 && page.url === options.startUrl) await deps.crawls.setNotes(id, { start_error: error });
    await this.settle(page, { kind: 'failed', entry: JSON.stringify(failedEntry(page.url, depth, error)) });
  }

  /**
   * A page read: a duplicate when its canonical URL (same host) or final URL is another fetched
   * page's, else listed, and its links offered one hop deeper.
   */
  private async pageRead(page: ClaimedPage, read: ReadPage, depth: number | undefined): Promise<void> {
    const { deps, id, options, payload } = this;
    const finalUrl = read.page.finalUrl;
    const canonical = typeof read.result.meta.canonical_url === 'string' ? read.result.meta.canonical_url : undefined;
    const aliases = [finalUrl];
    if (canonical && URL.canParse(canonical) && new URL(canonical).host === new URL(finalUrl).host) aliases.push(canonical);
    for (const alias of aliases) {
      const normalized = normalizeUrl(alias, { ignoreQuery: options.ignoreQuery });
      if (!normalized) continue;
      const key = urlKey(normalized);
      if (key === page.key) continue;
      if (await deps.crawls.claimAlias(id, key, page.key)) {
        const why = alias === finalUrl ? `its final URL ${alias} was already crawled` : `its canonical URL ${alias} was already crawled`;
        await this.settle(page, { kind: 'skipped', reason: 'duplicate', entry: JSON.stringify(skippedEntry(page.url, `duplicate: ${why}`)) });
        return;
      }
    }
    const llm = read.result.llm_output ? { output: read.result.llm_output, inputTruncated: read.usage?.inputTruncated } : undefined;
    const { llm_output: _omitted, ...result } = read.result;
    await this.settle(page, { kind: 'completed', entry: JSON.stringify(completedEntry(page.url, depth, result, options.page.outputType, llm)) });
    if (payload.family !== 'crawl' || options.sitemap === 'only') return;
    const links = read.result.links.filter((l) => l.type === 'internal' || l.type === 'external').map((l) => l.url);
    await this.discovery.offer(links, page.depth + 1);
  }

  private async settle(page: ClaimedPage, how: PageSettlement): Promise<void> {
    const settled = await this.deps.crawls.settle(this.id, page, how);
    if (settled.bytesCapReached) this.bytesCapReached = true;
    if (settled.index !== undefined) await this.notices.listed(settled.index);
  }
}
