import { fileNameOf } from './file-name.js';
import { transfer, type TransferOptions } from './transfer.js';

export interface FetchedFile {
  finalUrl: string;
  statusCode: number;
  /** As served, or 'application/octet-stream' when the server sent none: only a hint. */
  contentType: string;
  bytes: Buffer;
  fileName?: string;
}

export type FetchBinaryOptions = TransferOptions;

/** SPEC "Limits": parser files up to 50 MB. */
export const DOCUMENT_MAX_BYTES = 50 * 1024 * 1024;

/**
 * Downloads a document of any type with the same guards, limits and status handling as
 * `fetchPage`; the parser detects the real kind from the bytes. The deadline defaults to 120 s
 * instead of 20 s: 50 MB at a modest 1 MB/s needs most of a minute.
 */
export async function fetchBinary(url: string, options: FetchBinaryOptions = {}): Promise<FetchedFile> {
  const raw = await transfer(url, options, {
    accept: '*/*',
    defaultMaxBytes: DOCUMENT_MAX_BYTES,
    defaultDeadlineMs: 120_000,
  });
  return {
    finalUrl: raw.finalUrl,
    statusCode: raw.statusCode,
    contentType: raw.headers['content-type'] || 'application/octet-stream',
    bytes: raw.body,
    fileName: fileNameOf(raw.headers['content-disposition'], raw.finalUrl),
  };
}
