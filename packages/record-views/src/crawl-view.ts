import type { CrawlCounters, RecordStatus, RequestRecord } from '@gleaner/store';
import { pageContent, type ScrapeResult } from './scrape-view.js';

/** What a crawl's or batch's record keeps of its request (its options are in its jobs). */
export interface CrawlInput {
  /** Crawls: the start URL. */
  url?: string;
  /** Batches: how many URLs were given. */
  urls?: number;
  outputType: 'plaintext' | 'markdown';
  useLlm: boolean;
  limit?: number;
  tags?: string[];
}

/** Set when the crawl ends: why, in words ("limit of 50 pages reached"). */
export interface CrawlResult {
  reason: string;
}

export type CrawlRecord = RequestRecord<CrawlInput, CrawlResult>;

/** A map's record: its links once found. */
export interface MapInput {
  url: string;
  limit: number;
  tags?: string[];
}
export interface MapLink {
  url: string;
  title?: string;
}
export interface MapResult {
  links: MapLink[];
}
export type MapRecord = RequestRecord<MapInput, MapResult>;

/** The API's statuses of a crawl, batch or map: a request not yet picked up is already `processing`. */
export function siteJobStatus(status: RecordStatus): 'processing' | 'completed' | 'cancelled' | 'failed' {
  return status === 'received' ? 'processing' : status;
}

/** One listed result of a crawl or batch: a page, as a single scrape's result, or why it is not one. */
export type CrawlEntry =
  | { url: string; status: 'completed'; depth?: number; content: Record<string, unknown>; llm_output?: Record<string, unknown>; llm_input_truncated?: true }
  | { url: string; status: 'failed'; depth?: number; error: string }
  | { url: string; status: 'skipped'; reason: string };

/** A fetched page's entry: `content` as the status endpoint of a single scrape gives it. */
export function completedEntry(url: string, depth: number | undefined, result: ScrapeResult, outputType: 'plaintext' | 'markdown', llm?: { output: Record<string, unknown>; inputTruncated?: boolean }): CrawlEntry {
  return {
    url,
    status: 'completed',
    ...(depth !== undefined ? { depth } : {}),
    content: pageContent(result, outputType),
    ...(llm ? { llm_output: llm.output, ...(llm.inputTruncated ? { llm_input_truncated: true as const } : {}) } : {}),
  };
}

export function failedEntry(url: string, depth: number | undefined, error: string): CrawlEntry {
  return { url, status: 'failed', ...(depth !== undefined ? { depth } : {}), error };
}

export function skippedEntry(url: string, reason: string): CrawlEntry {
  return { url, status: 'skipped', reason };
}

/** `counts` of a status answer or webhook. */
export function crawlCounts(c: CrawlCounters | null): Record<string, unknown> {
  if (!c) return { discovered: 0, queued: 0, processing: 0, completed: 0, failed: 0, skipped: 0, skipped_by: {} };
  return { discovered: c.discovered, queued: c.queued, processing: c.inFlight, completed: c.completed, failed: c.failed, skipped: c.skipped, skipped_by: c.skippedBy };
}

function crawlHead(record: CrawlRecord): Record<string, unknown> {
  const status = siteJobStatus(record.status);
  return {
    request_id: record.id,
    status,
    ...(record.input.url !== undefined ? { url: record.input.url } : {}),
    created_at: record.createdAt,
    ...(record.completedAt !== undefined ? { completed_at: record.completedAt } : {}),
    ...(record.input.tags?.length ? { tags: record.input.tags } : {}),
    ...(record.result?.reason ? { reason: record.result.reason } : {}),
    ...(status === 'failed' ? { error: `${record.error?.code ?? 'E008'}: ${record.error?.message ?? 'the crawl failed'}` } : {}),
  };
}

/**
 * `GET /web-scrapper/crawl/{id}` (and batch): the crawl's state, its counts, and its listed results
 * from the cursor on. `next` is the cursor of the following call; null once the crawl has ended
 * and these are its last entries.
 */
export function crawlStatusBody(record: CrawlRecord, counters: CrawlCounters | null, entries: string[], from: number, total: number): string {
  const next = from + entries.length;
  const ended = siteJobStatus(record.status) !== 'processing';
  const head = { ...crawlHead(record), counts: crawlCounts(counters) };
  // Entries are stored as JSON: spliced in as they are, never parsed and serialised again.
  return `${JSON.stringify(head).slice(0, -1)},"pages":[${entries.join(',')}],"next":${ended && next >= total ? 'null' : JSON.stringify(String(next))}}`;
}

/** The `crawl.page` (or `batch.page`) notice: a run of listed results, and where it sits. */
export function crawlPagesWebhookBody(record: CrawlRecord, entries: string[], from: number): string {
  const head = { type: `${record.family}.page`, request_id: record.id, timestamp: Math.floor(Date.now() / 1000), ...(record.input.tags?.length ? { tags: record.input.tags } : {}), cursor: String(from), next: String(from + entries.length) };
  return `${JSON.stringify(head).slice(0, -1)},"pages":[${entries.join(',')}]}`;
}

/** The `crawl.completed`, `crawl.cancelled` or `crawl.failed` notice (batches: `batch.…`). */
export function crawlEndedWebhookBody(record: CrawlRecord, counters: CrawlCounters | null): Record<string, unknown> {
  return { type: `${record.family}.${siteJobStatus(record.status)}`, ...crawlHead(record), timestamp: record.completedAt ?? Math.floor(Date.now() / 1000), counts: crawlCounts(counters) };
}

/** `POST /web-scrapper/map` (200) and `GET /web-scrapper/map/{id}`. */
export function mapStatusBody(record: MapRecord): Record<string, unknown> {
  const status = siteJobStatus(record.status);
  return {
    request_id: record.id,
    status,
    url: record.input.url,
    ...(record.input.tags?.length ? { tags: record.input.tags } : {}),
    ...(status === 'completed' ? { links: record.result?.links ?? [] } : {}),
    ...(status === 'failed' ? { error: `${record.error?.code ?? 'E008'}: ${record.error?.message ?? 'the map failed'}` } : {}),
  };
}
