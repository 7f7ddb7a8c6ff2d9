import type { Request, Response, Router } from 'express';
import { uploadKey } from '@gleaner/object-store';
import { isRequestId, newRequestId } from '@gleaner/platform';
import type { ParseJob } from '@gleaner/queues';
import { parseErrorString, parseStatusBody, PARSE_PROCESSING_MESSAGE, type ParseRecord } from '@gleaner/record-views';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireApiKey } from '../middleware/auth.js';
import { accountIdOf, setRequestId } from '../middleware/context.js';
import { jsonObjectBody } from '../middleware/json-body.js';
import { idempotentSubmitOf, REPLAYED_HEADER, replayOf, reusedKeyError } from '../idempotency.js';
import { submitAndWait } from '../submit.js';
import { isMultipartForm, receiveUpload } from '../upload-body.js';
import { checkUrl, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { familyRouter } from './family-router.js';
import { submitWindowMs, waitForEndWhenPreferred } from '../preferences.js';
import { readTags } from '../request-tags.js';
import { RenderedRecords } from '@gleaner/store';

/**
 * SPEC "Document parse job": `type` values (the image guide adds tiff, tif, heic; issue 41 the
 * office, OpenDocument, EPUB, HTML and markdown names, fixed: outside checks send them).
 */
export const DOCUMENT_TYPES = ['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic', 'xlsx', 'xls', 'ods', 'csv', 'pptx', 'odp', 'odt', 'rtf', 'epub', 'html', 'md'] as const;
const OUTPUTS = ['plain', 'markdown'] as const;

interface ParseOptions {
  declaredType: string;
  output: ParseJob['output'];
  webhook?: string;
  tags?: string[];
}

/** `type`, `output` and `webhook`, the same whether they came in a JSON body or as form fields. */
async function parseOptions(body: Record<string, unknown>, allowPrivate: boolean, defaultType: string): Promise<ParseOptions> {
  const type = body.type ?? defaultType;
  if (typeof type !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(type.toLowerCase())) {
    throw new ApiError('400-001', undefined, { details: [`'type' must be one of ${DOCUMENT_TYPES.join(', ')}`] });
  }
  const output = body.output ?? 'plain';
  if (typeof output !== 'string' || !(OUTPUTS as readonly string[]).includes(output)) {
    throw new ApiError('400-005', undefined, { details: ["'output' must be 'plain' or 'markdown'"] });
  }
  const webhook = body.webhook ?? undefined;
  if (webhook !== undefined) {
    if (typeof webhook !== 'string') throw new ApiError('400-003', undefined, { details: ["'webhook' must be a string"] });
    const problem = await checkUrl(webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
    if (problem) throw new ApiError('400-003', undefined, { details: [webhookProblemMessage("'webhook'", problem)] });
  }
  const tagged = readTags(body.tags);
  if ('problem' in tagged) throw new ApiError('400-004', undefined, { details: [tagged.problem] });
  return { declaredType: type.toLowerCase(), output: output as ParseJob['output'], ...(webhook ? { webhook } : {}), ...tagged };
}

/** What a submit asks for: the document, its options, and what an Idempotency-Key's fingerprint is taken of. */
interface ParseSubmit {
  source: Pick<ParseJob, 'url' | 'upload'>;
  options: ParseOptions;
  asked: unknown;
}

/** Extensions that name one of the types under another spelling. */
const EXTENSION_TYPES: Record<string, string> = { htm: 'html', xhtml: 'html', markdown: 'md', tsv: 'csv' };

/** An uploaded file's extension as the type hint when the form names no `type` (a `.docx` is a docx). */
function typeOfFileName(name: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  const type = EXTENSION_TYPES[extension] ?? extension;
  return (DOCUMENT_TYPES as readonly string[]).includes(type) ? type : 'pdf';
}

export function documentsRouter(deps: GatewayDeps): Router {
  const { stores, config, logger, documents } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;
  const renderedStatus = new RenderedRecords();
  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: config.SYNC_WINDOW_MS };

  /** A JSON body names the document by URL. */
  async function fromJson(body: Record<string, unknown>): Promise<ParseSubmit> {
    if (body.url === undefined || body.url === null || body.url === '') throw new ApiError('400-004', undefined, { details: ["'url' is required (or upload the file as multipart/form-data)"] });
    if (typeof body.url !== 'string') throw new ApiError('400-002', undefined, { details: ["'url' must be a string"] });
    const options = await parseOptions(body, allowPrivate, 'pdf');
    const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
    if (urlProblem) throw new ApiError('400-002', undefined, { details: [URL_PROBLEM_MESSAGES[urlProblem]] });
    return { source: { url: body.url }, options, asked: body };
  }

  /** A multipart body carries the document itself, stored before the request is accepted (see receiveUpload). */
  async function fromUpload(req: Request, requestId: string): Promise<ParseSubmit> {
    const key = uploadKey(requestId);
    const { fields, file } = await receiveUpload(req, documents, key);
    try {
      if ('url' in fields) throw new ApiError('400-004', undefined, { details: ["send either a JSON body with 'url' or a multipart 'file' part, not both"] });
      const options = await parseOptions(fields, allowPrivate, typeOfFileName(file.name));
      return { source: { upload: { key, name: file.name, bytes: file.bytes } }, options, asked: { fields, file: { name: file.name, sha256: file.sha256 } } };
    } catch (err) {
      await documents.delete(key).catch(() => undefined);
      throw err;
    }
  }

  return familyRouter('parser', logger, (router) => {
    // The 100 KB JSON limit stays; a multipart upload (up to 50 MB) is read by the route as it streams.
    router.use(requireApiKey(stores.apiKeyGate, 'parse', config.DEFAULT_RATE_LIMIT_PER_MINUTE), (req, res, next) =>
      req.method === 'POST' && isMultipartForm(req) ? next() : jsonObjectBody(req, res, next),
    );

    /** The answer of a submit whose request is `record` (null: still running). */
    const answer = (res: Response, requestId: string, record: ParseRecord | null, replayed: boolean) => {
      setRequestId(res, requestId);
      if (replayed) res.set(REPLAYED_HEADER, 'true');
      if (!record) {
        res.status(202).json({ requestId, status: 'PROCESSING', message: PARSE_PROCESSING_MESSAGE });
      } else if (record.status === 'completed') {
        // The status record itself: a result has one shape whether it came now or from a later read.
        res.status(200).json(parseStatusBody(record));
      } else {
        const [code] = parseErrorString(record).split(':');
        const status = Number(code.slice(0, 3)) || 500;
        res.status(status).json({ error: parseErrorString(record), details: record.error?.details ?? [], requestId });
      }
    };

    router.post('/parse', async (req, res) => {
      const accountId = accountIdOf(res);
      const uploading = isMultipartForm(req);
      // A malformed key is refused before an upload is read; a JSON retry is answered before any check.
      let idempotency = idempotentSubmitOf(req, 'parser');
      const windowMs = submitWindowMs(req, res, config.SYNC_WINDOW_MS);
      if (idempotency && !uploading) {
        const replay = await replayOf({ ...idempotencyDeps, windowMs }, 'parse', 'parser', accountId, idempotency);
        if (replay) return answer(res, replay.requestId, replay.ended as ParseRecord | null, true);
      }
      const requestId = newRequestId();
      const { source, options, asked } = uploading ? await fromUpload(req, requestId) : await fromJson(req.body as Record<string, unknown>);
      // Nothing reads an upload whose request was not accepted, or that a retry's key answers for.
      const dropUpload = () => (source.upload ? documents.delete(source.upload.key).catch(() => undefined) : undefined);
      if (idempotency && uploading) {
        // An upload's retry is recognised by its fields and its file's digest, known once it is read.
        idempotency = idempotentSubmitOf(req, 'parser', asked);
        const replay = await replayOf({ ...idempotencyDeps, windowMs }, 'parse', 'parser', accountId, idempotency!).catch(async (err: unknown) => {
          await dropUpload();
          throw err;
        });
        if (replay) {
          await dropUpload();
          return answer(res, replay.requestId, replay.ended as ParseRecord | null, true);
        }
      }
      setRequestId(res, requestId);
      const { declaredType, output, webhook, tags } = options;
      const payload: ParseJob = { requestId, accountId, ...source, declaredType, output, ...(webhook ? { webhook } : {}) };
      const input = source.upload ? { upload: { name: source.upload.name, bytes: source.upload.bytes } } : { url: source.url };
      const outcome = await submitAndWait(stores, deps, {
        family: 'parse',
        requestId,
        accountId,
        input: { ...input, declaredType, output, ...(tags ? { tags } : {}) },
        webhookUrl: webhook,
        producer: deps.producers.parse,
        payload,
        windowMs,
        idempotency,
      }).catch(async (err: unknown) => {
        await dropUpload();
        throw err;
      });
      if (outcome.replayed) await dropUpload();
      if (outcome.reusedWithOtherBody) throw reusedKeyError('parser');
      answer(res, outcome.requestId, outcome.record as ParseRecord | null, outcome.replayed);
    });

    router.get('/status/:requestId', async (req, res) => {
      const id = String(req.params.requestId);
      setRequestId(res, id);
      if (!isRequestId(id)) throw new ApiError('404-001');
      await waitForEndWhenPreferred(req, res, deps, 'parse', id, accountIdOf(res));
      const lookup = await stores.records.lookupRendered<ParseRecord['input'], ParseRecord['result']>('parse', id, accountIdOf(res), renderedStatus, (record) =>
        parseStatusBody(record as ParseRecord),
      );
      if (!lookup.found) throw new ApiError(lookup.reason === 'expired' ? '404-002' : '404-001');
      res.status(200).type('application/json').send(lookup.json);
    });
  });
}
