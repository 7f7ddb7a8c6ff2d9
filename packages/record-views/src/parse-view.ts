import type { RequestRecord } from '@gleaner/store';

export interface ParseResult {
  data: string;
  /** The kind detected from the bytes. */
  type: string;
  pages: number;
  /** Text files: the decoder used, utf-8, utf-16le, utf-16be or windows-1252 (the "Latin-1" fallback). */
  encoding?: string;
}

export interface ParseInput {
  /** The document's URL, or (uploads) the file's name and size. */
  url?: string;
  upload?: { name: string; bytes: number };
  declaredType: string;
  output: 'plain' | 'markdown';
  /** The caller's labels, echoed in the status record (and so the webhook body). */
  tags?: string[];
}

export type ParseRecord = RequestRecord<ParseInput, ParseResult>;

export const PARSE_PROCESSING_MESSAGE = 'Document is being processed. Check the status endpoint for the result.';
export const WEBHOOK_DELIVERY_FAILED = '500-003: Webhook delivery failed';

export function parseStatusName(record: ParseRecord): 'PROCESSING' | 'COMPLETED' | 'FAILED' {
  if (record.status === 'completed') return 'COMPLETED';
  if (record.status === 'failed') return 'FAILED';
  return 'PROCESSING';
}

export function parseErrorString(record: ParseRecord): string {
  return `${record.error?.code ?? '500-001'}: ${record.error?.message ?? 'Processing error'}`;
}

/** What the document was: its URL, or an upload's file name. */
export function parseSource(input: ParseInput): { url: string } | { fileName: string } | Record<string, never> {
  if (input.url) return { url: input.url };
  return input.upload ? { fileName: input.upload.name } : {};
}

/** Status record `{requestId, status, type, createdAt, url | fileName, tags?, data?, pages?, encoding?, message?, error?}`; also the webhook body. */
export function parseStatusBody(record: ParseRecord): Record<string, unknown> {
  const status = parseStatusName(record);
  const body: Record<string, unknown> = {
    requestId: record.id,
    status,
    // The kind found in the bytes once known (a failed docx sent as "pdf" says docx), else the hint.
    type: record.result?.type ?? record.detectedType ?? record.input.declaredType,
    createdAt: record.createdAt,
    ...parseSource(record.input),
    ...(record.input.tags?.length ? { tags: record.input.tags } : {}),
  };
  if (status === 'COMPLETED') {
    body.data = record.result?.data ?? '';
    body.pages = record.result?.pages;
    if (record.result?.encoding) body.encoding = record.result.encoding;
  } else if (status === 'FAILED') {
    body.error = parseErrorString(record);
    if (record.error?.details?.length) body.details = record.error.details;
  } else {
    body.message = PARSE_PROCESSING_MESSAGE;
    if (record.progress) {
      body.pagesDone = record.progress.pagesDone;
      body.pagesTotal = record.progress.pagesTotal;
    }
  }
  if (record.webhook?.status === 'failed') body.webhookError = WEBHOOK_DELIVERY_FAILED;
  return body;
}
