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
  /** The caller's labels, echoed in the status record and the webhook body. */
  tags?: string[];
}

export type ScrapeRecord = RequestRecord<ScrapeInput, ScrapeResult>;

/** `tags` when the caller gave some (absent otherwise, so untagged answers keep the SPEC shape). */
function tagsOf(record: ScrapeRecord): { tags?: string[] } {
  return record.input.tags?.length ? { tags: record.input.tags } : {};
}

/** "Unix time the request was processed": completion time when there is one. */
function timestampOf(record: ScrapeRecord): number {
  return record.completedAt ?? record.createdAt;
}

/** The `content` object of a page: markdown only when it was asked for (crawl and batch pages too). */
export function pageContent(r: ScrapeResult, outputType: ScrapeInput['outputType']): Record<string, unknown> {
  return {
    text: r.text,
    ...(outputType === 'markdown' && r.markdown !== undefined ? { markdown: r.markdown } : {}),
    meta: r.meta,
    links: r.links,
    images: r.images,
  };
}

/** The `content` object of status results and webhooks (API-DECISIONS "Current scraper"). */
export function scrapeContent(record: ScrapeRecord): Record<string, unknown> {
  return pageContent(record.result!, record.input.outputType);
}

/**
 * LLM mode: `llm_output`, plus `llm_input_truncated: true` when the page had to be trimmed to the
 * model's input budget (absent otherwise, so untrimmed answers keep the SPEC shape exactly).
 */
function llmFields(record: ScrapeRecord): Record<string, unknown> {
  if (!record.input.useLlm) return {};
  return { llm_output: record.result?.llm_output ?? {}, ...(record.usage?.inputTruncated ? { llm_input_truncated: true } : {}) };
}

/** 200 answer of a submit that completed inside the window: flat in basic mode, `content` in LLM mode. */
export function scrapeImmediateBody(record: ScrapeRecord): Record<string, unknown> {
  const r = record.result!;
  const head = { request_id: record.id, url: record.input.url, status: 'completed', timestamp: timestampOf(record), ...tagsOf(record) };
  if (record.input.useLlm) return { ...head, content: scrapeContent(record), ...llmFields(record) };
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

/**
 * Delivery status of the request's own webhook (issue 4: "scraper records gain a delivery
 * status"): `{status: pending|delivered|failed, attempts, error?}`, only when a webhook was given.
 */
function webhookDeliveryField(record: ScrapeRecord): Record<string, unknown> {
  const w = record.webhook;
  if (!w) return {};
  return { webhook_delivery: { status: w.status, attempts: w.attempts, ...(w.status === 'failed' && w.lastError ? { error: w.lastError } : {}) } };
}

/** Status endpoint body for any state; `error_trace` only when the service runs in development. */
export function scrapeStatusBody(record: ScrapeRecord, includeTrace: boolean): Record<string, unknown> {
  const head = { request_id: record.id, url: record.input.url, status: record.status, timestamp: timestampOf(record), ...tagsOf(record) };
  if (record.status === 'completed') {
    return { ...head, content: scrapeContent(record), ...llmFields(record), ...webhookDeliveryField(record) };
  }
  if (record.status === 'failed') {
    return { ...head, error: scrapeErrorString(record), ...(includeTrace && record.error?.trace ? { error_trace: record.error.trace } : {}), ...webhookDeliveryField(record) };
  }
  return head;
}

/** Completion webhook body: `{request_id, status, url, timestamp, content, llm_output?, llm_input_truncated?, error?}`. */
export function scrapeWebhookBody(record: ScrapeRecord): Record<string, unknown> {
  const head = { request_id: record.id, status: record.status, url: record.input.url, timestamp: timestampOf(record), ...tagsOf(record) };
  if (record.status === 'completed') {
    return { ...head, content: scrapeContent(record), ...llmFields(record) };
  }
  return { ...head, content: null, error: scrapeErrorString(record) };
}
