import type { RequestRecord } from '@gleaner/store';

export interface ScrapeV1Result {
  scraped_content?: { html: string; text: string };
  llm_json_structure?: Record<string, unknown>;
}

export interface ScrapeV1Input {
  url: string;
  selector?: string;
  useLlm: boolean;
  prompt?: string;
}

export type ScrapeV1Record = RequestRecord<ScrapeV1Input, ScrapeV1Result>;

/** v1 names its queued state `pending`. */
export function v1Status(record: ScrapeV1Record): string {
  return record.status === 'received' ? 'pending' : record.status;
}

/**
 * 200 answer of a v1 submit: `{request_id, scraped_content}` or `{request_id, llm_json_structure}`,
 * plus `llm_input_truncated: true` only when the page was trimmed to the model's input budget.
 */
export function v1ResultBody(record: ScrapeV1Record): Record<string, unknown> {
  const r = record.result ?? {};
  if (!record.input.useLlm) return { request_id: record.id, scraped_content: r.scraped_content ?? { html: '', text: '' } };
  return { request_id: record.id, llm_json_structure: r.llm_json_structure ?? {}, ...(record.usage?.inputTruncated ? { llm_input_truncated: true } : {}) };
}

/** The HTTP status a failed v1 request answers with (its error code is the status: 403, 404, 422, 500). */
export function v1FailureStatus(record: ScrapeV1Record): number {
  const n = Number(record.error?.code);
  return Number.isInteger(n) && n >= 400 && n < 600 ? n : 500;
}

export function v1StatusBody(record: ScrapeV1Record): Record<string, unknown> {
  const head = { request_id: record.id, status: v1Status(record) };
  if (record.status === 'completed') {
    const { request_id: _id, ...rest } = v1ResultBody(record);
    return { ...head, ...rest };
  }
  if (record.status === 'failed') return { ...head, status_code: v1FailureStatus(record), details: record.error?.message ?? 'processing failed' };
  return head;
}
