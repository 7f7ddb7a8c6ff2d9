import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import type { Request } from 'express';
import busboy from 'busboy';
import { SNIFF_HEAD_BYTES, unsupportedHead } from '@gleaner/document-extract/detect';
import type { DocumentStore } from '@gleaner/object-store';
import { labelProblem } from '@gleaner/store';
import { ApiError } from './errors/index.js';

/** SPEC "Limits": parser files up to 50 MB. */
export const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** Room for the form's fields and part headers around the file: a longer body cannot fit the limit. */
const ENVELOPE_MAX_BYTES = 256 * 1024;
/** The form's fields are the JSON body's (`type`, `output`, `webhook`): short strings. */
const FIELD_MAX_BYTES = 16 * 1024;

/** A file name is kept with its request and shown back: a label, as long as file systems allow. */
const FILE_NAME_MAX_CHARS = 255;

export const TOO_LARGE_DETAIL = `the file is larger than ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB`;

export function isMultipartForm(req: Request): boolean {
  return /^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '');
}

export interface ReceivedUpload {
  /** The form's text fields (the first value of each name). */
  fields: Record<string, string>;
  /** The `file` part's name as the client gave it, the bytes stored and their SHA-256 (hex). */
  file: { name: string; bytes: number; sha256: string };
}

/**
 * Reads a multipart/form-data body: its fields, and its one `file` part, which goes into `store`
 * under `key` as it arrives (at most one storage part of it is in memory). While it streams, its
 * size is counted (over 50 MB: 413-001) and its first bytes are sniffed (binary data of no kind
 * the parser reads: 400-001), so a bad file is refused before it is stored whole. Whatever was
 * stored is removed when the request fails; the caller owns the object once this resolves.
 */
export async function receiveUpload(req: Request, store: DocumentStore, key: string): Promise<ReceivedUpload> {
  const declaredLength = Number(req.headers['content-length']);
  if (declaredLength > UPLOAD_MAX_BYTES + ENVELOPE_MAX_BYTES) throw new ApiError('413-001', undefined, { details: [TOO_LARGE_DETAIL] });

  let form: busboy.Busboy;
  try {
    // One more byte than allowed: busboy reports its limit when a file reaches it, not past it.
    // Browsers, curl and FormData send a file name's bytes as UTF-8 (busboy reads them as Latin-1
    // unless told: 'résumé.pdf' became 'rÃ©sumÃ©.pdf'); `filename*` names its own charset.
    form = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fileSize: UPLOAD_MAX_BYTES + 1, files: 1, fields: 10, parts: 12, fieldSize: FIELD_MAX_BYTES } });
  } catch (err) {
    throw malformed((err as Error).message);
  }

  const fields: Record<string, string> = {};
  let refusal: ApiError | null = null;
  const refuse = (error: ApiError) => (refusal ??= error);
  let stored: Promise<{ bytes: number }> | null = null;
  let fileName = '';
  let guard: UploadGuard | null = null;

  form.on('field', (name, value, info) => {
    if (info.valueTruncated) refuse(new ApiError('400-004', undefined, { details: [`field '${name}' is longer than ${FIELD_MAX_BYTES / 1024} KB`] }));
    if (!(name in fields)) fields[name] = value;
  });
  form.on('file', (name, part, info) => {
    if (name !== 'file' || stored) {
      refuse(malformed(name !== 'file' ? `unexpected file part '${name}': send the document as the 'file' part` : "more than one 'file' part"));
      part.resume();
      return;
    }
    fileName = (info.filename ?? '').trim();
    const nameProblem = labelProblem("the file's name", fileName, FILE_NAME_MAX_CHARS);
    if (nameProblem) {
      refuse(new ApiError('400-004', undefined, { details: [nameProblem] }));
      part.resume();
      return;
    }
    const fileGuard = (guard = new UploadGuard());
    part.on('limit', () => fileGuard.destroy(new ApiError('413-001', undefined, { details: [TOO_LARGE_DETAIL] })));
    // A refused file is still read to its end (and dropped): the parser needs the rest of the form.
    fileGuard.on('error', () => {
      part.unpipe(fileGuard);
      part.resume();
    });
    part.pipe(fileGuard);
    stored = store.put(key, fileGuard);
    // Settled here so a refusal is never an unhandled rejection; awaited below.
    stored.catch((err: unknown) => refuse(err instanceof ApiError ? err : storageFailure(err)));
  });
  form.on('filesLimit', () => refuse(malformed("more than one 'file' part")));
  form.on('partsLimit', () => refuse(malformed('too many parts')));
  form.on('fieldsLimit', () => refuse(malformed('too many fields')));

  const parsed = new Promise<void>((resolve, reject) => {
    const cutOff = () => reject(malformed('the request body was cut off'));
    form.once('close', resolve);
    form.once('error', (err: Error) => reject(malformed(err.message)));
    req.once('error', cutOff);
    // A client gone before the body is whole (possibly while the key was checked, before these
    // listeners existed) ends the request without an 'error' to hear.
    req.once('close', () => req.complete || cutOff());
    if (req.destroyed && !req.complete) cutOff();
  });
  req.pipe(form);
  try {
    await parsed;
    const result = stored ? await (stored as Promise<{ bytes: number }>).catch(() => null) : null;
    if (refusal) throw refusal;
    if (!result) throw new ApiError('400-004', undefined, { details: ["'file' is required: a multipart 'file' part holding the document"] });
    if (result.bytes === 0) throw new ApiError('400-001', undefined, { details: ['the file is empty'] });
    return { fields, file: { name: fileName, bytes: result.bytes, sha256: (guard as UploadGuard | null)?.digest() ?? '' } };
  } catch (err) {
    req.unpipe(form);
    req.resume();
    if (stored) {
      // A body cut off (the client hung up, the request timeout's 408) never ends the file's
      // stream: it would hold the partial file and its descriptor open until the process exits.
      // Failing it makes the store close and remove what it wrote; then `stored` settles.
      (guard as UploadGuard | null)?.destroy(err instanceof Error ? err : new Error(String(err)));
      await (stored as Promise<{ bytes: number }>).catch(() => undefined);
      await store.delete(key).catch(() => undefined);
    }
    throw err;
  }
}

function malformed(reason: string): ApiError {
  return new ApiError('400-004', undefined, { details: [`malformed multipart/form-data body: ${reason}`] });
}

function storageFailure(err: unknown): ApiError {
  return new ApiError('500-002', undefined, { details: [`the upload could not be stored: ${(err as Error)?.message ?? String(err)}`] });
}

/**
 * Passes the file through unchanged once its head has been sniffed: the first SNIFF_HEAD_BYTES
 * (or the whole file when shorter) are held back until unsupportedHead has judged them. It also
 * digests the file as it passes (an Idempotency-Key's retry is recognised by its content).
 */
class UploadGuard extends Transform {
  private head: Buffer[] = [];
  private headBytes = 0;
  private judged = false;
  private readonly hash = createHash('sha256');

  digest(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    if (this.judged) return done(null, chunk);
    this.head.push(chunk);
    this.headBytes += chunk.length;
    if (this.headBytes < SNIFF_HEAD_BYTES) return done();
    this.release(done);
  }

  override _flush(done: TransformCallback): void {
    if (this.judged) return done();
    this.release(done);
  }

  private release(done: TransformCallback): void {
    this.judged = true;
    const head = Buffer.concat(this.head);
    this.head = [];
    const problem = unsupportedHead(head);
    if (problem) return done(new ApiError('400-001', undefined, { details: [problem] }));
    done(null, head);
  }
}
