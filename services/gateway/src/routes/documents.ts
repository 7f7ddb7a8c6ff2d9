import type { Response, Router } from 'express';
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
import { checkUrl, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { familyRouter } from './family-router.js';
import { RenderedRecords } from '@gleaner/store';

/** SPEC "Document parse job": `type` values (the image guide adds tiff, tif, heic). */
export const DOCUMENT_TYPES = ['pdf', 'doc', 'docx', 'jpg', 'jpeg', 'png', 'txt', 'tiff', 'tif', 'heic'] as const;
const OUTPUTS = ['plain', 'markdown'] as const;

export function documentsRouter(deps: GatewayDeps): Router {
  const { stores, config, logger } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;
  const renderedStatus = new RenderedRecords();
  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: config.SYNC_WINDOW_MS };
  return familyRouter('parser', logger, (router) => {
    router.use(requireApiKey(stores.apiKeyGate, 'parse', config.DEFAULT_RATE_LIMIT_PER_MINUTE), jsonObjectBody);

    /** The answer of a submit whose request is `record` (null: still running). */
    const answer = (res: Response, requestId: string, declaredType: string, record: ParseRecord | null, replayed: boolean) => {
      setRequestId(res, requestId);
      if (replayed) res.set(REPLAYED_HEADER, 'true');
      if (!record) {
        res.status(202).json({ requestId, status: 'PROCESSING', message: PARSE_PROCESSING_MESSAGE });
      } else if (record.status === 'completed') {
        const encoding = record.result?.encoding ? { encoding: record.result.encoding } : {};
        res.status(200).json({ requestId, status: 'COMPLETED', data: record.result?.data ?? '', type: record.result?.type ?? declaredType, pages: record.result?.pages, ...encoding });
      } else {
        const [code] = parseErrorString(record).split(':');
        const status = Number(code.slice(0, 3)) || 500;
        res.status(status).json({ error: parseErrorString(record), details: record.error?.details ?? [], requestId });
      }
    };

    router.post('/parse', async (req, res) => {
      const accountId = accountIdOf(res);
      const body = req.body as Record<string, unknown>;
      const idempotency = idempotentSubmitOf(req, 'parser');
      if (idempotency) {
        const replay = await replayOf(idempotencyDeps, 'parse', 'parser', accountId, idempotency);
        if (replay) return answer(res, replay.requestId, String(replay.record.input.declaredType), replay.ended as ParseRecord | null, true);
      }
      if (body.url === undefined || body.url === null || body.url === '') throw new ApiError('400-004', undefined, { details: ["'url' is required"] });
      if (typeof body.url !== 'string') throw new ApiError('400-002', undefined, { details: ["'url' must be a string"] });
      const type = body.type ?? 'pdf';
      if (typeof type !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(type.toLowerCase())) {
        throw new ApiError('400-001', undefined, { details: [`'type' must be one of ${DOCUMENT_TYPES.join(', ')}`] });
      }
      const output = body.output ?? 'plain';
      if (typeof output !== 'string' || !(OUTPUTS as readonly string[]).includes(output)) {
        throw new ApiError('400-005', undefined, { details: ["'output' must be 'plain' or 'markdown'"] });
      }
      const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
      if (urlProblem) throw new ApiError('400-002', undefined, { details: [URL_PROBLEM_MESSAGES[urlProblem]] });
      const webhook = body.webhook ?? undefined;
      if (webhook !== undefined) {
        if (typeof webhook !== 'string') throw new ApiError('400-003', undefined, { details: ["'webhook' must be a string"] });
        const problem = await checkUrl(webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
        if (problem) throw new ApiError('400-003', undefined, { details: [webhookProblemMessage("'webhook'", problem)] });
      }

      const requestId = newRequestId();
      setRequestId(res, requestId);
      const declaredType = type.toLowerCase();
      const payload: ParseJob = { requestId, accountId, url: body.url, declaredType, output: output as ParseJob['output'], ...(webhook ? { webhook } : {}) };
      const outcome = await submitAndWait(stores, deps.recordEndings, {
        family: 'parse',
        requestId,
        accountId,
        input: { url: body.url, declaredType, output },
        webhookUrl: webhook,
        producer: deps.producers.parse,
        payload,
        windowMs: config.SYNC_WINDOW_MS,
        idempotency,
      });
      if (outcome.reusedWithOtherBody) throw reusedKeyError('parser');
      answer(res, outcome.requestId, declaredType, outcome.record as ParseRecord | null, outcome.replayed);
    });

    router.get('/status/:requestId', async (req, res) => {
      const id = String(req.params.requestId);
      setRequestId(res, id);
      if (!isRequestId(id)) throw new ApiError('404-001');
      const lookup = await stores.records.lookupRendered<ParseRecord['input'], ParseRecord['result']>('parse', id, accountIdOf(res), renderedStatus, (record) =>
        parseStatusBody(record as ParseRecord),
      );
      if (!lookup.found) throw new ApiError(lookup.reason === 'expired' ? '404-002' : '404-001');
      res.status(200).type('application/json').send(lookup.json);
    });
  });
}
