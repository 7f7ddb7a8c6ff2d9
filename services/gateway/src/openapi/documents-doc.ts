import { DOCUMENT_TYPES } from '../routes/documents.js';
import { apiKeySecurity, EXAMPLE_REQUEST_ID, errorResponses, idempotencyKeyParameter, preferSubmitParameter, preferWaitParameter, submitAnswer, jsonRequestBody, jsonResponse, pathParameter, schemaRef, type DocSection } from './doc-builders.js';
import type { RequestBody, Schema } from './openapi-types.js';

const requestId: Schema = { type: 'string', description: 'Request id (UUIDv7); kept 7 days.' };
/** What the document was: one of the two. */
const source: Record<string, Schema> = {
  url: { type: 'string', description: 'The document asked for by URL.' },
  fileName: { type: 'string', description: 'The file name of an uploaded document.' },
};
const tags: Schema = { type: 'array', items: { type: 'string' }, description: 'The tags the request was given; absent when none.' };
const data: Schema = {
  type: 'string',
  description:
    'Extracted text; pages joined with "\\n\\n=== Page Break ===\\n\\n". A spreadsheet\'s sheet, a presentation\'s slide and an EPUB\'s chapter are each a page; a Word, OpenDocument text, HTML or markdown file is one page unless it has explicit page breaks.',
};
const kind: Schema = { type: 'string', description: 'The kind detected from the bytes (the declared type is only a hint); on a FAILED record, the declared type only when the bytes were never read or matched no kind.' };
const encoding: Schema = {
  type: 'string',
  enum: ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'],
  description: 'Text files only: the decoder used. UTF-8 unless a byte order mark says UTF-16; files that are not valid UTF-8 are read as windows-1252 (the usual "Latin-1").',
};

const schemas: Record<string, Schema> = {
  ParseRequest: {
    type: 'object',
    required: ['url'],
    properties: {
      url: { type: 'string', format: 'uri', description: 'URL of the document (at most 50 MB).' },
      type: { type: 'string', enum: [...DOCUMENT_TYPES], default: 'pdf', description: 'A hint; the real kind is detected from the bytes. Only csv and md are told from txt by this hint (their bytes are text either way).' },
      output: { type: 'string', enum: ['plain', 'markdown'], default: 'plain' },
      webhook: { type: 'string', format: 'uri', description: 'HTTPS URL that receives the status record when the job ends.' },
    },
    additionalProperties: true,
  },
  ParseUpload: {
    type: 'object',
    description: 'The document itself, as multipart/form-data: a `file` part and the same fields as the JSON body. The file is streamed into storage as it arrives; its size and its first bytes are checked meanwhile.',
    required: ['file'],
    properties: {
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The document, at most 50 MB (52,428,800 bytes): 413-001 beyond. Binary data of a kind the parser does not read is refused at once with 400-001. Kept in storage 7 days, then deleted.' },
      type: { type: 'string', enum: [...DOCUMENT_TYPES], description: "A hint; the real kind is detected from the bytes (only csv and md are told from txt by it). Default: the file name's extension when it is one of these, else pdf." },
      output: { type: 'string', enum: ['plain', 'markdown'], default: 'plain' },
      webhook: { type: 'string', format: 'uri', description: 'HTTPS URL that receives the status record when the job ends.' },
    },
  },
  ParseCompleted: {
    type: 'object',
    description: 'The COMPLETED status record: the same shape a later status read answers.',
    required: ['requestId', 'status', 'data', 'type', 'createdAt'],
    properties: { requestId, status: { type: 'string', const: 'COMPLETED' }, type: kind, createdAt: { type: 'integer', description: 'Unix time (seconds).' }, ...source, tags, data, pages: { type: 'integer', minimum: 0 }, encoding },
  },
  ParseAccepted: {
    type: 'object',
    required: ['requestId', 'status', 'message'],
    properties: { requestId, status: { type: 'string', const: 'PROCESSING' }, message: { type: 'string' } },
  },
  ParseStatus: {
    type: 'object',
    description: 'The status record (also the webhook body).',
    required: ['requestId', 'status', 'type', 'createdAt'],
    properties: {
      requestId,
      status: { type: 'string', enum: ['PROCESSING', 'COMPLETED', 'FAILED'] },
      type: kind,
      createdAt: { type: 'integer', description: 'Unix time (seconds).' },
      ...source,
      tags,
      data,
      pages: { type: 'integer', minimum: 0, description: 'COMPLETED only.' },
      encoding,
      message: { type: 'string', description: 'PROCESSING only.' },
      pagesDone: { type: 'integer', minimum: 0, description: 'PROCESSING only: pages extracted so far.' },
      pagesTotal: { type: 'integer', minimum: 0, description: 'PROCESSING only: pages in the document.' },
      error: { type: 'string', description: 'FAILED only: "CODE: message".' },
      details: { type: 'array', items: { type: 'string' }, description: 'FAILED only.' },
      webhookError: { type: 'string', const: '500-003: Webhook delivery failed' },
    },
  },
  ParserError: {
    type: 'object',
    description: 'Error body of the document parser; the HTTP status is the code\'s first three digits (400-001…400-005, 401-001, 403-001, 404-001, 404-002, 413-001, 429-001, 500-001, 500-002).',
    required: ['error', 'details'],
    properties: {
      error: { type: 'string', pattern: '^\\d{3}-\\d{3}: ', examples: ['400-001: Invalid file type'] },
      details: { type: 'array', items: { type: 'string' } },
      requestId: { type: 'string', description: 'When the job was accepted and then failed inside the 20 s window.' },
    },
  },
};

/** The submit takes a URL as JSON, or the document itself as a multipart upload. */
function withUpload(body: RequestBody): RequestBody {
  return {
    ...body,
    description: 'Either JSON naming the document by URL (at most 100 KB), or multipart/form-data carrying it (at most 50 MB).',
    content: { ...body.content, 'multipart/form-data': { schema: schemaRef('ParseUpload'), encoding: { file: { contentType: 'application/octet-stream' } } } },
  };
}

const submitExample = { url: 'https://example.com/reports/annual-2024.pdf', type: 'pdf', output: 'markdown' };

export const documentsDoc: DocSection = {
  schemas,
  paths: {
    '/documents/parse': {
      post: {
        operationId: 'submitParse',
        summary: 'Parse a document',
        description:
          'PDF (text and scanned), Word (doc, docx), RTF, OpenDocument (odt, ods, odp), Excel (xlsx, xls), CSV, PowerPoint (pptx), EPUB, HTML, markdown, images (OCR; multi-page TIFF, HEIC) and txt. In markdown, tables are pipe tables and headings and lists are kept; each sheet is a heading and its tables, each slide its title, text, tables and speaker notes. Answers 200 within 20 s, else 202; poll the status endpoint (first after 5 s, then every 10 s) or use a webhook.',
        tags: ['Document parser'],
        security: apiKeySecurity,
        parameters: [idempotencyKeyParameter, preferSubmitParameter],
        requestBody: withUpload(
          jsonRequestBody(schemaRef('ParseRequest'), {
            pdf: { summary: 'PDF to markdown', value: submitExample },
            scan: { summary: 'Scanned image with a webhook', value: { url: 'https://example.com/scans/invoice.tiff', type: 'tiff', output: 'plain', webhook: 'https://hooks.example.net/gleaner' } },
          }),
        ),
        responses: {
          '200': submitAnswer(jsonResponse(200, 'Completed within the window.', schemaRef('ParseCompleted'))),
          '202': submitAnswer(jsonResponse(202, 'Still processing.', schemaRef('ParseAccepted'), { requestId: EXAMPLE_REQUEST_ID, status: 'PROCESSING', message: 'Document is being processed. Check the status endpoint for the result.' })),
          ...errorResponses('ParserError', {
            400: '400-001 invalid file type (also unsupported, encrypted, empty, or a URL\'s document over 50 MB), 400-002 invalid URL, 400-003 invalid webhook, 400-004 missing field, body not JSON or malformed multipart, 400-005 invalid output, 400-006 malformed Idempotency-Key.',
            401: '401-001: missing or unknown API key.',
            403: '403-001: the key lacks the parse scope (details name it).',
            413: '413-001: a JSON body over 100 KB, or an uploaded file over 50 MB.',
            422: '422-001: the Idempotency-Key was already used with a different request body (or file).',
            429: '429-001: rate limit exceeded.',
            500: '500-001 processing error, 500-002 storage unreachable (with Retry-After), or the upload could not be stored.',
          }),
        },
      },
    },
    '/documents/status/{requestId}': {
      get: {
        operationId: 'getParse',
        summary: 'Parse job status and result',
        description: 'While PROCESSING, pagesDone/pagesTotal report progress for multi-page documents.',
        tags: ['Document parser'],
        security: apiKeySecurity,
        parameters: [pathParameter('requestId', 'The id answered by the submit.', EXAMPLE_REQUEST_ID), preferWaitParameter],
        responses: {
          '200': jsonResponse(200, 'PROCESSING, COMPLETED or FAILED record.', schemaRef('ParseStatus')),
          ...errorResponses('ParserError', {
            401: '401-001: missing or unknown API key.',
            403: '403-001: the key lacks the parse scope (details name it).',
            404: '404-001 unknown id (or another account\'s), 404-002 older than 7 days.',
            429: '429-001: rate limit exceeded.',
            500: '500-002: storage unreachable.',
          }),
        },
      },
    },
  },
};
