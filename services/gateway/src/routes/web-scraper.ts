import Joi from 'joi';
import type { Response, Router } from 'express';
import { isRequestId, newRequestId } from '@gleaner/platform';
import type { ScrapeJob } from '@gleaner/queues';
import { scrapeImmediateBody, scrapeErrorString, scrapeStatusBody, type ScrapeRecord } from '@gleaner/record-views';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireApiKey } from '../middleware/auth.js';
import { accountIdOf, setRequestId } from '../middleware/context.js';
import { jsonObjectBody, largeJsonObjectBody } from '../middleware/json-body.js';
import { idempotentSubmitOf, REPLAYED_HEADER, replayOf, reusedKeyError } from '../idempotency.js';
import { submitAndWait } from '../submit.js';
import { checkUrl, httpUrlOrNull, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { familyRouter } from './family-router.js';
import { submitWindowMs, waitForEndWhenPreferred } from '../preferences.js';
import { pageOptionKeys, pageOptionsOf, type PageOptionFields } from './page-options.js';
import { registerSiteJobRoutes } from './site-jobs.js';
import { readTags } from '../request-tags.js';
import { RenderedRecords } from '@gleaner/store';

const PROCESSING_MESSAGE = 'Request is still processing. Check the status endpoint later (poll at most every 5 minutes) or wait for the webhook.';

/** Types are checked first (E001), then values against the rules (E009); URLs separately (E003). */
const scrapeBodySchema = Joi.object({
  url: Joi.string().required(),
  use_cache: Joi.boolean().strict(),
  webhook: Joi.string().allow(null),
  ...pageOptionKeys,
}).unknown(true);

interface ScrapeBody extends PageOptionFields {
  url: string;
  use_cache?: boolean;
  webhook?: string | null;
  /** Labels echoed in the status record and webhook bodies (checked by readTags). */
  tags?: unknown;
}

/** SPEC: with `use_cache: true` every field other than url is ignored, so none of them is checked. */
const cacheLookupSchema = Joi.object({ url: Joi.string().required(), use_cache: Joi.boolean().strict() }).unknown(true);

function validateShape(body: unknown): ScrapeBody {
  const isCacheLookup = (body as { use_cache?: unknown }).use_cache === true;
  const schema = isCacheLookup ? cacheLookupSchema : scrapeBodySchema;
  const { error, value } = schema.validate(body, { abortEarly: true, convert: false });
  if (error) throw new ApiError('E001', error.details[0].message.replace(/"/g, "'"));
  return isCacheLookup ? { url: (value as ScrapeBody).url, use_cache: true } : (value as ScrapeBody);
}

export function webScraperRouter(deps: GatewayDeps): Router {
  const { stores, config, logger } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;
  const renderedStatus = new RenderedRecords();
  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: config.SYNC_WINDOW_MS };
  return familyRouter('scraper', logger, (router) => {
    router.use(requireApiKey(stores.apiKeyGate, 'scrape', config.DEFAULT_RATE_LIMIT_PER_MINUTE), (req, res, next) => (req.path.replace(/\/$/, '') === '/batch' ? largeJsonObjectBody : jsonObjectBody)(req, res, next));
    registerSiteJobRoutes(router, deps);

    /** The answer of a submit whose request is `record` (null: still running). */
    const answer = (res: Response, requestId: string, url: string, record: ScrapeRecord | null, replayed: boolean) => {
      setRequestId(res, requestId);
      if (replayed) res.set(REPLAYED_HEADER, 'true');
      if (!record) {
        res.status(202).json({ request_id: requestId, url, status: 'processing', message: PROCESSING_MESSAGE });
      } else if (record.status === 'completed') {
        res.status(200).json(scrapeImmediateBody(record));
      } else {
        const rendered = scrapeErrorString(record);
        const includeTrace = config.NODE_ENV === 'development' && record.error?.trace;
        res.status(record.error?.code === 'E003' || record.error?.code === 'E009' ? 400 : 500).json({
          request_id: requestId,
          url,
          status: 'failed',
          timestamp: record.completedAt ?? record.createdAt,
          error: rendered,
          ...(includeTrace ? { error_trace: record.error!.trace } : {}),
        });
      }
    };

    router.post('/', async (req, res) => {
      const accountId = accountIdOf(res);
      const body = validateShape(req.body);
      // A cache read starts no request: it needs no key, and one sent is not kept.
      const idempotency = body.use_cache === true ? undefined : idempotentSubmitOf(req, 'scraper');
      const windowMs = submitWindowMs(req, res, config.SYNC_WINDOW_MS);
      if (idempotency) {
        const replay = await replayOf({ ...idempotencyDeps, windowMs }, 'scrape', 'scraper', accountId, idempotency);
        if (replay) return answer(res, replay.requestId, String(replay.record.input.url), replay.ended as ScrapeRecord | null, true);
      }
      if (body.use_cache === true) {
        // SPEC: with use_cache every other field is ignored. Nothing is fetched, so the URL is
        // only a key: checked for form, not resolved (a DNS lookup per cache hit, and a hit
        // refused while DNS is down, would be cost without purpose).
        if (!httpUrlOrNull(body.url)) throw new ApiError('E003', URL_PROBLEM_MESSAGES.invalid);
        const cached = await stores.cache.get(accountId, body.url);
        if (!cached) throw new ApiError('E002', 'No cached result for this URL', { status: 404 });
        setRequestId(res, cached.requestId);
        res.status(200).type('application/json').send(cached.json);
        return;
      }

      const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
      if (urlProblem) throw new ApiError('E003', URL_PROBLEM_MESSAGES[urlProblem]);
      const pageOptions = await pageOptionsOf(body, accountId, stores);
      const { outputType, useLlm, prompt, llmKeyId } = pageOptions;
      if (body.webhook) {
        const problem = await checkUrl(body.webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
        if (problem) throw new ApiError('E009', webhookProblemMessage('webhook', problem));
      }

      const tagged = readTags(body.tags);
      if ('problem' in tagged) throw new ApiError('E009', tagged.problem);

      const requestId = newRequestId();
      setRequestId(res, requestId);
      const payload: ScrapeJob = { requestId, accountId, url: body.url, ...pageOptions, ...(body.webhook ? { webhook: body.webhook } : {}) };
      const outcome = await submitAndWait(stores, deps, {
        family: 'scrape',
        requestId,
        accountId,
        input: { url: body.url, outputType, useLlm, ...(useLlm ? { prompt, llmKeyId } : {}), ...tagged },
        webhookUrl: body.webhook ?? undefined,
        producer: deps.producers.scrape,
        payload,
        windowMs,
        idempotency,
      });
      if (outcome.reusedWithOtherBody) throw reusedKeyError('scraper');
      answer(res, outcome.requestId, body.url, outcome.record as ScrapeRecord | null, outcome.replayed);
    });

    router.get('/:requestId', async (req, res) => {
      const id = String(req.params.requestId);
      setRequestId(res, id);
      if (!isRequestId(id)) throw new ApiError('E002', 'Request ID not found');
      await waitForEndWhenPreferred(req, res, deps, 'scrape', id, accountIdOf(res));
      const includeTrace = config.NODE_ENV === 'development';
      const lookup = await stores.records.lookupRendered<ScrapeRecord['input'], ScrapeRecord['result']>('scrape', id, accountIdOf(res), renderedStatus, (record) =>
        scrapeStatusBody(record as ScrapeRecord, includeTrace),
      );
      if (!lookup.found) throw new ApiError('E002', lookup.reason === 'expired' ? 'Request ID not found (results are kept 15 hours after completion)' : 'Request ID not found');
      res.status(200).type('application/json').send(lookup.json);
    });
  });
}
