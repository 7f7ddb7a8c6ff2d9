import type { CrawlJob } from '@gleaner/queues';
import type { CrawlRecord } from '@gleaner/record-views';
import { RECORD_LIFETIME_SECONDS, type RecordError, type RequestRecord } from '@gleaner/store';
import type { CrawlDeps } from './crawl-deps.js';

/** How a crawl ends: its record's status, and why. */
export type CrawlEnd = { status: 'completed' | 'cancelled'; reason: string } | { status: 'failed'; error: RecordError };

/**
 * The delivery id of a crawl's end notice to its own webhook, or to one of its account's
 * subscriptions (one per crawl and endpoint: a run again never sends it twice).
 */
export const endNoticeId = (crawlId: string, subscriptionId?: string) => `wh-${crawlId}-end${subscriptionId ? `-${subscriptionId}` : ''}`;

/**
 * What follows a crawl's end, from whichever slice (or worker) finds it ended: its working keys
 * go (the frontier, seen URLs...; counters and results stay as long as the record), its account
 * may start another, and its end notice is queued for its own webhook and for each of the
 * account's subscriptions to its family (they get the end notice only: a subscription hears of
 * every crawl of the account, and its pages are read by cursor). Every step may run twice: each
 * is idempotent.
 */
export async function finalizeCrawl(deps: CrawlDeps, record: RequestRecord): Promise<void> {
  const family = record.family as CrawlJob['family'];
  await deps.crawls.finish(record.id, RECORD_LIFETIME_SECONDS[family].afterCompletion ?? 24 * 3600);
  await deps.crawls.release(record.accountId, record.id);
  const targets: Array<{ url: string; subscriptionId?: string }> = record.webhook?.url ? [{ url: record.webhook.url }] : [];
  for (const sub of await deps.jobs.subscriptions.forFamily(record.accountId, family)) targets.push({ url: sub.url, subscriptionId: sub.id });
  for (const target of targets) {
    const deliveryId = endNoticeId(record.id, target.subscriptionId);
    await deps.jobs.webhooks.add({ deliveryId, requestId: record.id, accountId: record.accountId, family, ...target, crawlEvent: { kind: 'ended' } }, deliveryId);
  }
}

/** Records the crawl's end (the first outcome recorded stays), then finalizes it. */
export async function endCrawl(deps: CrawlDeps, family: CrawlJob['family'], crawlId: string, end: CrawlEnd): Promise<CrawlRecord | null> {
  const { records } = deps;
  const record =
    end.status === 'failed'
      ? await records.fail(family, crawlId, end.error)
      : end.status === 'cancelled'
        ? await records.cancel(family, crawlId, { reason: end.reason })
        : await records.complete(family, crawlId, { reason: end.reason });
  if (!record) return null;
  await finalizeCrawl(deps, record);
  deps.logger.info(`${family} ended`, { requestId: crawlId, status: record.status, reason: (record.result as { reason?: string } | undefined)?.reason, error: record.error?.message });
  return record as unknown as CrawlRecord;
}
