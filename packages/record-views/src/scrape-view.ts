import type { RequestRecord } from '@gleaner/store';

/** What a scrape worker stores as the record's result. */
export interface ScrapeResult {
  text: string;
  markdown?: string;
  meta: Record<string, unknown>;
  links: Array<{ text: string; url: string; type: string }>;
  images: Array<{ url: string; alt: string }>;
  llm_output?: Record<string, unknown>;
}

export interface ScrapeInput {
  url: string;
  outputType: 'plaintext' | 'markdown';
  useLlm: boolean;
  prompt?: string;
  llmKeyId?: string;
}

export type ScrapeRecord = RequestRecord<ScrapeInput, ScrapeResult>;

/** "Unix time the request was processed": completion time when there is one. */
function timestampOf(record: ScrapeRecord): number {
  return record.completedAt ?? record.createdAt;
}

/** The `content` object of status results and webhooks (API-DECISIONS "Current scraper"). */
export function scrapeContent(record: ScrapeRecord): Record<string, unknown> {
  const r = record.result!;
  return {
    text: r.text,
    ...(record.input.outputType === 'markdown' && r.markdown !== undefined ? { markdown: r.markdown } : {}),
    meta: r.meta,
    links: r.links,
    images: r.images,
  };
}

/** 200 answer of a submit that completed inside the window: flat in basic mode, `content` in LLM mode. */
export function scrapeImmediateBody(record: ScrapeRecord): Record<string, unknown> {
  const r = record.result!;
  const head = { request_id: record.id, url: record.input.url, status: 'completed', timestamp: timestampOf(record) };
  if (record.input.useLlm) return { ...head, content: scrapeContent(record), llm_output: r.llm_output ?? {} };
  return {
    ...head,
    text_content: r.text,
    ...(record.input.outputType === 'markdown' && r.markdown !== undefined ? { markdown_content: r.markdown } : {}),
    meta: r.meta,
    links: r.links,
    images: r.images,
  };
}

export function scrapeErrorString(record: ScrapeRecord): string {
  return `${record.error?.code ?? 'E008'}: ${record.error?.message ?? 'Content processing failed'}`;
}

/** Status endpoint body for any state; `error_trace` only when the service runs in development. */
export function scrapeStatusBody(record: ScrapeRecord, includeTrace: boolean): Record<string, unknown> {
  const head = { request_id: record.id, url: record.input.url, status: record.status, timestamp: timestampOf(record) };
  if (record.status === 'completed') {
    return { ...head, content: scrapeContent(record), ...(record.input.useLlm ? { llm_output: record.result?.llm_output ?? {} } : {}) };
  }
  if (record.status === 'failed') {
    return { ...head, error: scrapeErrorString(record), ...(includeTrace && record.error?.trace ? { error_trace: record.error.trace } : {}) };
  }
  return head;
}

/** Completion webhook body: `{request_id, status, url, timestamp, content, llm_output?, error?}`. */
export function scrapeWebhookBody(record: ScrapeRecord): Record<string, unknown> {
  const head = { request_id: record.id, status: record.status, url: record.input.url, timestamp: timestampOf(record) };
  if (record.status === 'completed') {
    return { ...head, content: scrapeContent(record), ...(record.input.useLlm ? { llm_output: record.result?.llm_output ?? {} } : {}) };
  }
  return { ...head, content: null, error: scrapeErrorString(record) };
}
