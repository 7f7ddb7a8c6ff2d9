import type { WebhookFamily } from '@gleaner/queues';
import { parseStatusBody, scrapeWebhookBody, v1StatusBody, type ParseRecord, type ScrapeRecord, type ScrapeV1Record } from '@gleaner/record-views';
import type { RequestRecord } from '@gleaner/store';

/** SPEC "Events": each family's notification identifies itself by User-Agent. */
export const WEBHOOK_USER_AGENT: Record<WebhookFamily, string> = {
  scrape: 'Web-Scraper-Webhook/1.0',
  'scrape-v1': 'Web-Scraper-Webhook/1.0',
  parse: 'Document-Parser-Webhook/1.0',
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
  }
}
