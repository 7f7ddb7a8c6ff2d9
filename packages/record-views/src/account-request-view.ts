import { recordDurationMs, type CrawlCounters, type Family, type RequestRecord, type WebhookDeliveryState } from '@gleaner/store';
import { crawlCounts, crawlStatusBody, mapStatusBody, siteJobStatus, type CrawlRecord, type MapRecord } from './crawl-view.js';
import { parseErrorString, parseStatusBody, type ParseRecord } from './parse-view.js';
import { v1StatusBody, type ScrapeV1Record } from './scrape-v1-view.js';
import { scrapeErrorString, scrapeStatusBody, type ScrapeRecord } from './scrape-view.js';

/**
 * How `/account/requests` shows a request of any family to its account (the console's Requests
 * and Webhooks pages): one summary shape across families, and a detail with the result as text,
 * markdown and the family's own status body.
 */
export interface AccountRequestSummary {
  request_id: string;
  family: Family;
  status: RequestRecord['status'];
  /** The page or document URL. */
  url: string;
  created_at: number;
  completed_at?: number;
  /** From acceptance to the recorded outcome. */
  duration_ms?: number;
  /** "CODE: message", as the family's status endpoint says it. */
  error?: string;
  /** The request's own `webhook`, when it had one. */
  webhook?: WebhookDeliveryView;
  /** Deliveries to the account's webhook subscriptions. */
  subscription_deliveries: number;
  /** Crawls and batches: what they have done (as their status endpoint counts it). */
  counts?: Record<string, unknown>;
  /** Batches: how many URLs were given. */
  urls?: number;
  /** Maps, once completed: how many URLs were found. */
  links?: number;
}

/** A crawl's or batch's results as the detail shows them: its counters and a page of its listed results. */
export interface SiteJobResults {
  counters: CrawlCounters | null;
  entries: string[];
  from: number;
  total: number;
}

export interface WebhookDeliveryView {
  url: string;
  status: WebhookDeliveryState['status'];
  attempts: number;
  last_error?: string;
  delivered_at?: number;
}

export interface AccountRequestDetail extends AccountRequestSummary {
  /** What was asked, as recorded (url, output kind, selector, prompt...). */
  input: Record<string, unknown>;
  /** Extracted text: the page's or the document's (plain output), a v1 selection's text. */
  text?: string;
  /** Markdown when it was asked for. */
  markdown?: string;
  /** What the family's status endpoint answers for this request. */
  response: Record<string, unknown>;
  error_details?: string[];
  subscription_delivery_list: Array<WebhookDeliveryView & { subscription_id: string }>;
}

export function webhookDeliveryView(d: WebhookDeliveryState): WebhookDeliveryView {
  return { url: d.url, status: d.status, attempts: d.attempts, ...(d.lastError ? { last_error: d.lastError } : {}), ...(d.deliveredAt ? { delivered_at: d.deliveredAt } : {}) };
}

function errorString(record: RequestRecord): string | undefined {
  if (record.status !== 'failed') return undefined;
  if (record.family === 'scrape') return scrapeErrorString(record as unknown as ScrapeRecord);
  if (record.family === 'parse') return parseErrorString(record as unknown as ParseRecord);
  return `${record.error?.code ?? '500'}: ${record.error?.message ?? 'processing failed'}`;
}

/** `counters`: a crawl's or batch's, read by the caller (undefined: not shown). */
export function accountRequestSummary(record: RequestRecord, counters?: CrawlCounters | null): AccountRequestSummary {
  const error = errorString(record);
  const durationMs = recordDurationMs(record);
  const links = record.family === 'map' ? (record as unknown as MapRecord).result?.links : undefined;
  return {
    request_id: record.id,
    family: record.family,
    status: record.status,
    url: String(record.input.url ?? ''),
    created_at: record.createdAt,
    ...(record.completedAt !== undefined ? { completed_at: record.completedAt } : {}),
    ...(durationMs !== undefined ? { duration_ms: durationMs } : {}),
    ...(error ? { error } : {}),
    ...(record.webhook ? { webhook: webhookDeliveryView(record.webhook) } : {}),
    subscription_deliveries: Object.keys(record.subscriptionDeliveries ?? {}).length,
    ...(counters !== undefined ? { counts: crawlCounts(counters) } : {}),
    ...(record.family === 'batch' ? { urls: Number((record as unknown as CrawlRecord).input.urls ?? 0) } : {}),
    ...(links ? { links: links.length } : {}),
  };
}

/** `site`: a crawl's or batch's counters and results from a cursor, read by the caller. */
export function accountRequestDetail(record: RequestRecord, includeTrace: boolean, site?: SiteJobResults): AccountRequestDetail {
  const base = {
    ...accountRequestSummary(record, site?.counters),
    input: record.input,
    ...(record.error?.details?.length ? { error_details: record.error.details } : {}),
    subscription_delivery_list: Object.entries(record.subscriptionDeliveries ?? {}).map(([id, d]) => ({ subscription_id: id, ...webhookDeliveryView(d) })),
  };
  if (record.family === 'scrape') {
    const r = (record as unknown as ScrapeRecord).result;
    return { ...base, ...(r ? { text: r.text, ...(r.markdown !== undefined ? { markdown: r.markdown } : {}) } : {}), response: scrapeStatusBody(record as unknown as ScrapeRecord, includeTrace) };
  }
  if (record.family === 'parse') {
    const p = record as unknown as ParseRecord;
    const data = p.result?.data;
    return { ...base, ...(data !== undefined ? (p.input.output === 'markdown' ? { markdown: data } : { text: data }) : {}), response: parseStatusBody(p) };
  }
  if (record.family === 'crawl' || record.family === 'batch') {
    // The pages come from the crawl's results (as GET /web-scrapper/crawl/{id}?cursor= answers them), not the record.
    const c = record as unknown as CrawlRecord;
    if (site) return { ...base, response: JSON.parse(crawlStatusBody(c, site.counters, site.entries, site.from, site.total)) as Record<string, unknown> };
    return { ...base, response: { request_id: c.id, status: siteJobStatus(c.status), ...(c.result?.reason ? { reason: c.result.reason } : {}) } };
  }
  if (record.family === 'map') return { ...base, response: mapStatusBody(record as unknown as MapRecord) };
  const v1 = record as unknown as ScrapeV1Record;
  const text = v1.result?.scraped_content?.text;
  return { ...base, ...(text !== undefined ? { text } : {}), response: v1StatusBody(v1) };
}
