import type { CrawlJob } from '@gleaner/queues';
import type { CrawlDeps } from './crawl-deps.js';

/**
 * The `crawl.page` notices of a crawl with a webhook: its listed results in runs of `batch`
 * entries (each notice names its range, and its body is read from the results when delivered),
 * the rest at the end of each slice. Where the notices reached is kept in the crawl's state, so a
 * later slice carries on from there; a run is named by its range (its delivery id), so a slice
 * run again after a crash sends a run it had queued at most once more.
 */
export class PageNotices {
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: CrawlDeps,
    private readonly crawl: { id: string; accountId: string; family: CrawlJob['family']; webhook?: string },
    private readonly batch: number,
    /** The first entry not yet notified. */
    private notifiedTo: number,
  ) {}

  static async load(deps: CrawlDeps, crawl: PageNotices['crawl'], batch: number): Promise<PageNotices> {
    const [notified] = crawl.webhook ? await deps.crawls.notes(crawl.id, 'notified') : [null];
    return new PageNotices(deps, crawl, batch, Number(notified ?? 0));
  }

  /** An entry was listed at `index`: a full run is sent. */
  listed(index: number): Promise<void> {
    if (!this.crawl.webhook || index + 1 - this.notifiedTo < this.batch) return Promise.resolve();
    return this.flush();
  }

  /** Sends whatever is listed and not yet notified, in runs of `batch`. */
  flush(): Promise<void> {
    if (!this.crawl.webhook) return Promise.resolve();
    this.flushing = this.flushing.then(() => this.send());
    return this.flushing;
  }

  private async send(): Promise<void> {
    const { id, accountId, family, webhook } = this.crawl;
    const total = await this.deps.crawls.listedCount(id);
    while (this.notifiedTo < total) {
      const from = this.notifiedTo;
      const to = Math.min(total, from + this.batch) - 1;
      const deliveryId = `wh-${id}-p${from}-${to}`;
      await this.deps.jobs.webhooks.add({ deliveryId, requestId: id, accountId, family, url: webhook!, crawlEvent: { kind: 'page', from, to } }, deliveryId);
      this.notifiedTo = to + 1;
      await this.deps.crawls.setNotes(id, { notified: this.notifiedTo });
    }
  }
}
