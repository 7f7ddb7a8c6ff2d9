import type { IncomingHttpHeaders } from 'node:http';
import { decodeBody } from './charset.js';
import { isHtmlType, isPlainTextType, mediaTypeOf, sniffMediaType } from './content-type.js';
import { FetchError } from './fetch-error.js';
import { transfer, type TransferOptions } from './transfer.js';

export interface FetchedPage {
  finalUrl: string;
  statusCode: number;
  /** As served; when the server sent none, the sniffed 'text/html' or 'text/plain'. */
  contentType: string;
  charset: string;
  body: string;
  /** Size of the body in bytes after decompression, before decoding. */
  bytes: number;
  kind: 'html' | 'text';
  headers: IncomingHttpHeaders;
  /** Every URL redirected to, in order; the last one is `finalUrl`. */
  redirects: string[];
}

export type FetchPageOptions = TransferOptions;

/** Scraper default; v1 passes 5 MB, documents go through `fetchBinary`. */
export const PAGE_MAX_BYTES = 10 * 1024 * 1024;

function unsupported(mediaType: string): FetchError {
  return new FetchError('unsupported_type', `unsupported content type ${mediaType}: the scraper reads HTML and plain text; send documents to /documents/parse`);
}

/**
 * Fetches a web page for extraction: HTML and XHTML as 'html', text/plain as 'text', decoded to
 * a string. Anything else is refused from the response head, before its body is downloaded, with
 * a message pointing at `/documents` (documents are the parser's business).
 */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const raw = await transfer(url, options, {
    accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
    defaultMaxBytes: PAGE_MAX_BYTES,
    defaultDeadlineMs: 20_000,
    checkHead: ({ headers }) => {
      const type = mediaTypeOf(headers['content-type']);
      if (type !== '' && !isHtmlType(type) && !isPlainTextType(type)) throw unsupported(type);
    },
  });
  const declared = mediaTypeOf(raw.headers['content-type']);
  const mediaType = declared || sniffMediaType(raw.body);
  if (!isHtmlType(mediaType) && !isPlainTextType(mediaType)) throw unsupported(mediaType);
  const isHtml = isHtmlType(mediaType);
  const { text, charset } = decodeBody(raw.body, raw.headers['content-type'], isHtml);
  return {
    finalUrl: raw.finalUrl,
    statusCode: raw.statusCode,
    contentType: raw.headers['content-type'] || mediaType,
    charset,
    body: text,
    bytes: raw.body.length,
    kind: isHtml ? 'html' : 'text',
    headers: raw.headers,
    redirects: raw.redirects,
  };
}
