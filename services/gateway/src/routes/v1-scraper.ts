import Joi from 'joi';
import type { Response, Router } from 'express';
import { isRequestId, newRequestId } from '@gleaner/platform';
import type { ScrapeV1Job } from '@gleaner/queues';
import { v1FailureStatus, v1ResultBody, v1StatusBody, type ScrapeV1Record } from '@gleaner/record-views';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireApiKey } from '../middleware/auth.js';
import { accountIdOf, setRequestId } from '../middleware/context.js';
import { jsonObjectBody } from '../middleware/json-body.js';
import { idempotentSubmitOf, REPLAYED_HEADER, replayOf, reusedKeyError } from '../idempotency.js';
import { submitAndWait } from '../submit.js';
import { checkUrl, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { familyRouter } from './family-router.js';
import { selectorProblem } from './selector-syntax.js';

/** SPEC: more than 3 status reads of one request id answer 429. */
const MAX_STATUS_READS = 3;

const v1BodySchema = Joi.object({
  url: Joi.string().required(),
  selector: Joi.string().allow('', null).max(2000),
  use_llm: Joi.boolean().strict(),
  prompt: Joi.string().allow(''),
  webhook: Joi.string().allow(null),
}).unknown(true);

interface V1Body {
  url: string;
  selector?: string | null;
  use_llm?: boolean;
  prompt?: string;
  webhook?: string | null;
}

export function v1ScraperRouter(deps: GatewayDeps): Router {
  const { stores, config, logger } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;
  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: config.SYNC_WINDOW_MS };
  return familyRouter('v1', logger, (router) => {
    router.use(requireApiKey(stores.apiKeyGate, 'scrape', config.DEFAULT_RATE_LIMIT_PER_MINUTE), jsonObjectBody);

    /** The answer of a submit whose request is `record` (null: still running). */
    const answer = (res: Response, requestId: string, record: ScrapeV1Record | null, replayed: boolean) => {
      setRequestId(res, requestId);
      if (replayed) res.set(REPLAYED_HEADER, 'true');
      if (!record) {
        res.status(202).json({ request_id: requestId, status: 'processing' });
      } else if (record.status === 'completed') {
        res.status(200).json(v1ResultBody(record));
      } else {
        const status = v1FailureStatus(record);
        res.status(status).json({ error: record.error?.message ?? 'Processing failed', status_code: status, request_id: requestId });
      }
    };

    router.post('/', async (req, res) => {
      const accountId = accountIdOf(res);
      const idempotency = idempotentSubmitOf(req, 'v1');
      if (idempotency) {
        const replay = await replayOf(idempotencyDeps, 'scrape-v1', 'v1', accountId, idempotency);
        if (replay) return answer(res, replay.requestId, replay.ended as ScrapeV1Record | null, true);
      }
      const { error, value } = v1BodySchema.validate(req.body, { convert: false });
      if (error) throw new ApiError('400', error.details[0].message.replace(/"/g, "'"), { status: 400 });
      const body = value as V1Body;
      const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
      if (urlProblem) throw new ApiError('400', URL_PROBLEM_MESSAGES[urlProblem], { status: 400 });
      const useLlm = body.use_llm === true;
      if (useLlm && !body.prompt?.trim()) throw new ApiError('400', 'prompt is required when use_llm is true', { status: 400 });
      const selector = body.selector || undefined;
      if (!useLlm && selector) {
        const problem = selectorProblem(selector);
        if (problem) throw new ApiError('400', problem, { status: 400 });
      }
      if (useLlm && !(await stores.llmKeys.resolve(accountId))) {
        throw new ApiError('400', 'no language-model key is registered for this account (POST /account/llm-keys)', { status: 400 });
      }
      if (body.webhook) {
        const problem = await checkUrl(body.webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
        if (problem) throw new ApiError('400', webhookProblemMessage('webhook', problem), { status: 400 });
      }

      const requestId = newRequestId();
      setRequestId(res, requestId);
      const payload: ScrapeV1Job = {
        requestId,
        accountId,
        url: body.url,
        useLlm,
        ...(selector && !useLlm ? { selector } : {}),
        ...(useLlm ? { prompt: body.prompt } : {}),
        ...(body.webhook ? { webhook: body.webhook } : {}),
      };
      const outcome = await submitAndWait(stores, deps, {
        family: 'scrape-v1',
        requestId,
        accountId,
        input: { url: body.url, useLlm, ...(payload.selector ? { selector } : {}), ...(useLlm ? { prompt: body.prompt } : {}) },
        webhookUrl: body.webhook ?? undefined,
        producer: deps.producers.scrapeV1,
        payload,
        windowMs: config.SYNC_WINDOW_MS,
        credits: 1,
        idempotency,
      });
      if (outcome.reusedWithOtherBody) throw reusedKeyError('v1');
      answer(res, outcome.requestId, outcome.record as ScrapeV1Record | null, outcome.replayed);
    });

    router.get('/:requestId', async (req, res) => {
      const id = String(req.params.requestId);
      setRequestId(res, id);
      if (!isRequestId(id)) throw new ApiError('404', 'Request ID not found', { status: 404 });
      const lookup = await stores.records.lookup<ScrapeV1Record['input'], ScrapeV1Record['result']>('scrape-v1', id, accountIdOf(res));
      if (!lookup.found) throw new ApiError('404', lookup.reason === 'expired' ? 'Request ID expired (ids live 24 hours)' : 'Request ID not found', { status: 404 });
      const reads = await stores.records.countRead('scrape-v1', id);
      if (reads > MAX_STATUS_READS) throw new ApiError('429', `Status of a request may be read at most ${MAX_STATUS_READS} times`, { status: 429 });
      const record = lookup.record as ScrapeV1Record;
      res.status(200).json(v1StatusBody(record));
    });
  });
}
