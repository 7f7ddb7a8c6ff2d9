import type { WebhookFamily, WebhookJob } from '@gleaner/queues';
import { crawlEndedWebhookBody, crawlPagesWebhookBody, mapStatusBody, parseStatusBody, scrapeWebhookBody, v1StatusBody, type CrawlRecord, type MapRecord, type ParseRecord, type ScrapeRecord, type ScrapeV1Record } from '@gleaner/record-views';
import type { CrawlState, RequestRecord } from '@gleaner/store';

/** SPEC "Events": each family's notification identifies itself by User-Agent. */
export const WEBHOOK_USER_AGENT: Record<WebhookFamily, string> = {
  scrape: 'Web-Scraper-Webhook/1.0',
  'scrape-v1': 'Web-Scraper-Webhook/1.0',
  parse: 'Document-Parser-Webhook/1.0',
  crawl: 'Web-Scraper-Webhook/1.0',
  batch: 'Web-Scraper-Webhook/1.0',
  map: 'Web-Scraper-Webhook/1.0',
};

/** The scraper sends its completion body, v1 its status body, the parser its status record. */
export function webhookBody(family: WebhookFamily, record: RequestRecord): Record<string, unknown> {
  switch (family) {
    case 'scrape':
      return scrapeWebhookBody(record as unknown as ScrapeRecord);
    case 'scrape-v1':
      return v1StatusBody(record as unknown as ScrapeV1Record);
    case 'parse':
      return parseStatusBody(record as unknown as ParseRecord);
    case 'map':
      return mapStatusBody(record as unknown as MapRecord);
    case 'crawl':
    case 'batch':
      return crawlEndedWebhookBody(record as unknown as CrawlRecord, null);
  }
}

/** Most bytes of listed results one `crawl.page` notice carries (the runner batches within it). */
const PAGE_NOTICE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The body of a delivery, read when it is sent (payloads carry references): a crawl's notices
 * read its results and counters, every other delivery is the record's completion body.
 */
export async function deliveryBody(job: WebhookJob, record: RequestRecord, crawls: CrawlState): Promise<string> {
  const event = job.crawlEvent;
  if (!event) return JSON.stringify(webhookBody(job.family, record));
  const crawl = record as unknown as CrawlRecord;
  if (event.kind === 'ended') return JSON.stringify(crawlEndedWebhookBody(crawl, await crawls.counters(record.id)));
  const from = event.from ?? 0;
  const { entries } = await crawls.entries(record.id, from, (event.to ?? from) - from + 1, PAGE_NOTICE_MAX_BYTES);
  return crawlPagesWebhookBody(crawl, entries, from);
}
