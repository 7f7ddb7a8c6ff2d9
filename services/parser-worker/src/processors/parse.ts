import type { Job } from 'bullmq';
import { ObjectMissingError, type DocumentStore } from '@gleaner/object-store';
import { FetchError, fetchBinary } from '@gleaner/safe-fetch';
import { ocrPages, TaskTimeoutError, ThreadTaskError, type Logger, type ThreadPool } from '@gleaner/platform';
import type { ParseJob } from '@gleaner/queues';
import type { ParseResult } from '@gleaner/record-views';
import type { RequestRecordStore } from '@gleaner/store';
import { JobFailure, runRecordedJob, type RecordedJobContext } from '@gleaner/worker-runtime';
import { PageBudget, PageBudgetExceededError } from '../page-budget.js';
import type { ParseProgress, ParseTask, ParseTaskResult } from '../parse-thread.js';

/** SPEC "Limits": parser files up to 50 MB. */
export const PARSE_MAX_BYTES = 50 * 1024 * 1024;

export interface ParseProcessorDeps {
  jobs: RecordedJobContext;
  records: RequestRecordStore;
  parsePool: ThreadPool;
  /** A job's share of the process's OCR workers (ocrShare). */
  ocrParallelism: number;
  allowPrivateNetworks: boolean;
  /** Where uploaded documents wait (jobs with `upload` instead of `url`). */
  documents: DocumentStore;
  /** PARSER_JOB_BUDGET_MS: a document's time budget, whatever its pages. */
  budgetMs: number;
  /** PARSER_PAGE_BUDGET_MS: the time allowed per page read (PageBudget). */
  pageBudgetMs: number;
  /** PARSER_DOWNLOAD_TIMEOUT_MS: the whole download's deadline. */
  downloadDeadlineMs: number;
  logger: Logger;
}

function downloadFailure(err: unknown): JobFailure {
  if (!(err instanceof FetchError)) return new JobFailure('500-001', 'document download failed', true, [(err as Error).message]);
  switch (err.kind) {
    case 'invalid_url':
    case 'blocked_address':
      return new JobFailure('400-002', 'Invalid URL format', false, [err.message]);
    case 'too_large':
      return new JobFailure('400-001', 'Invalid file type', false, ['file is larger than 50 MB']);
    default:
      return new JobFailure('500-001', 'Processing error', err.transient, [`document download failed: ${err.message}`]);
  }
}

/** Reads an uploaded document from the store; a missing one cannot come back, a store that fails may. */
async function readUpload(documents: DocumentStore, key: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await documents.read(key);
  } catch (err) {
    if (err instanceof ObjectMissingError) {
      const where = documents.kind === 'local' ? ' (the local document folder is not shared across machines: use DOCUMENT_STORE=s3 when workers run elsewhere)' : '';
      throw new JobFailure('500-002', 'Storage error', false, [`the uploaded file is no longer in the document store${where}`]);
    }
    throw new JobFailure('500-002', 'Storage error', true, [`the uploaded file could not be read: ${(err as Error).message}`]);
  }
  if (bytes.length > PARSE_MAX_BYTES) throw new JobFailure('400-001', 'Invalid file type', false, ['file is larger than 50 MB']);
  return bytes;
}

/** Node's message when a thread passes its `resourceLimits` (ERR_WORKER_OUT_OF_MEMORY). */
const THREAD_OUT_OF_MEMORY = /reaching memory limit|ERR_WORKER_OUT_OF_MEMORY/;

const seconds = (ms: number) => Math.round(ms / 1000);

/** A parse thread's failure in the parser's vocabulary (400-001 the file's fault, 500-001 ours). */
export function parseFailure(err: unknown): JobFailure {
  if (err instanceof PageBudgetExceededError) {
    const pages = `${err.pagesRead} page${err.pagesRead === 1 ? '' : 's'} read`;
    return new JobFailure('500-001', 'Processing error', false, [`document processing exceeded its ${seconds(err.budgetMs)} s budget (${seconds(err.perPageMs)} s a page, ${pages})`]);
  }
  if (err instanceof TaskTimeoutError) return new JobFailure('500-001', 'Processing error', false, [`document processing exceeded its ${seconds(err.budgetMs)} s budget`]);
  // The thread's heap limit is the last guard against a document built to exhaust memory (the
  // size checks come first): the file, not our service, is at fault, and retrying cannot help.
  // Read by shape: the error is made by Node's worker machinery, not necessarily in this realm.
  const { message = '', code = '' } = (err ?? {}) as { message?: string; code?: string };
  if (code === 'ERR_WORKER_OUT_OF_MEMORY' || THREAD_OUT_OF_MEMORY.test(String(message))) {
    return new JobFailure('400-001', 'The document exceeds a processing limit', false, ['the document exceeds a processing limit: parsing it needs more memory than a document may use']);
  }
  if (err instanceof ThreadTaskError && err.remoteName === 'DocumentError') {
    const code = err.fields.code === '400-001' ? '400-001' : '500-001';
    const details = Array.isArray(err.fields.details) ? (err.fields.details as string[]) : [];
    return new JobFailure(code, code === '400-001' ? 'Invalid file type' : 'Processing error', false, details.length ? details : [err.message]);
  }
  // A thread that died (out of memory, crash) is replaced; the document is what broke it.
  return new JobFailure('500-001', 'Processing error', false, [(err as Error).message]);
}

/** download (50 MB, guarded) or read the upload from storage → parse in a thread with a budget, progress into the record. */
export function createParseProcessor(deps: ParseProcessorDeps) {
  return (payload: ParseJob, job: Job) =>
    runRecordedJob('parse', job, payload.requestId, deps.jobs, async () => {
      let bytes: Buffer;
      if (payload.upload) {
        bytes = await readUpload(deps.documents, payload.upload.key);
      } else {
        try {
          bytes = (await fetchBinary(payload.url!, { maxBytes: PARSE_MAX_BYTES, allowPrivateNetworks: deps.allowPrivateNetworks, deadlineMs: deps.downloadDeadlineMs })).bytes;
        } catch (err) {
          throw downloadFailure(err);
        }
      }
      let lastProgressWrite = 0;
      // The kind found in the bytes goes into the record at once, so that a failure reports it
      // (a docx sent as "pdf" that turns out damaged is a damaged docx) rather than the hint.
      let kindWritten: Promise<unknown> = Promise.resolve();
      let parsed: ParseTaskResult;
      const budget = new PageBudget(deps.pageBudgetMs, deps.budgetMs);
      try {
        parsed = await deps.parsePool.run<ParseTask, ParseTaskResult>(
          { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), declaredType: payload.declaredType, output: payload.output, ocrParallelism: deps.ocrParallelism },
          deps.budgetMs,
          (message) => {
            const progress = message as ParseProgress;
            if ('kind' in progress) {
              kindWritten = deps.records.setDetectedType('parse', payload.requestId, progress.kind).catch(() => undefined);
              return;
            }
            const { pagesDone, pagesTotal } = progress;
            budget.pagesDone(pagesDone);
            // At most two record writes a second, and always the last page.
            if (Date.now() - lastProgressWrite < 500 && pagesDone < pagesTotal) return;
            lastProgressWrite = Date.now();
            deps.records.setProgress('parse', payload.requestId, pagesDone, pagesTotal).catch(() => undefined);
          },
          budget.signal,
        );
      } catch (err) {
        await kindWritten;
        throw parseFailure(err);
      } finally {
        budget.stop();
      }
      if (parsed.ocrPages > 0) ocrPages.inc(parsed.ocrPages);
      const result: ParseResult = { data: parsed.text, type: parsed.kind, pages: parsed.pages, ...(parsed.encoding ? { encoding: parsed.encoding } : {}) };
      deps.logger.info('document parsed', { requestId: payload.requestId, kind: parsed.kind, pages: parsed.pages, encoding: parsed.encoding, notes: parsed.notes });
      return { result, extra: { progress: { pagesDone: parsed.pages, pagesTotal: parsed.pages } } };
    });
}
