import Joi from 'joi';
import type { Response, Router } from 'express';
import { compileOutputSchema, LlmError } from '@gleaner/llm-extract';
import { isRequestId, newRequestId } from '@gleaner/platform';
import { RENDER_TIMEOUT_MAX_MS, RENDER_WAIT_FOR_MAX_MS, type ScrapeJob } from '@gleaner/queues';
import { scrapeImmediateBody, scrapeErrorString, scrapeStatusBody, type ScrapeRecord } from '@gleaner/record-views';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { requireApiKey } from '../middleware/auth.js';
import { accountIdOf, setRequestId } from '../middleware/context.js';
import { jsonObjectBody } from '../middleware/json-body.js';
import { idempotentSubmitOf, REPLAYED_HEADER, replayOf, reusedKeyError } from '../idempotency.js';
import { submitAndWait } from '../submit.js';
import { checkUrl, httpUrlOrNull, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { familyRouter } from './family-router.js';
import { submitWindowMs, waitForEndWhenPreferred } from '../preferences.js';
import { readTags } from '../request-tags.js';
import { RenderedRecords } from '@gleaner/store';

const PROCESSING_MESSAGE = 'Request is still processing. Check the status endpoint later (poll at most every 5 minutes) or wait for the webhook.';

/** Types are checked first (E001), then values against the rules (E009); URLs separately (E003). */
const scrapeBodySchema = Joi.object({
  url: Joi.string().required(),
  output_type: Joi.string(),
  use_cache: Joi.boolean().strict(),
  webhook: Joi.string().allow(null),
  use_llm: Joi.boolean().strict(),
  prompt: Joi.string().allow(''),
  llm_key_id: Joi.string().allow(null),
  schema: Joi.object().unknown(true),
  render_js: Joi.alternatives(Joi.boolean().strict(), Joi.string()),
  wait_for: Joi.number().strict(),
  wait_for_selector: Joi.string().allow(''),
  timeout: Joi.number().strict(),
}).unknown(true);

interface ScrapeBody {
  url: string;
  output_type?: string;
  use_cache?: boolean;
  webhook?: string | null;
  use_llm?: boolean;
  prompt?: string;
  llm_key_id?: string | null;
  schema?: Record<string, unknown>;
  /** Labels echoed in the status record and webhook bodies (checked by readTags). */
  tags?: unknown;
  render_js?: boolean | string;
  wait_for?: number;
  wait_for_selector?: string;
  timeout?: number;
}

/** `render_js`, `wait_for`, `wait_for_selector` and `timeout` as the scrape job carries them. */
type RenderOptions = Pick<ScrapeJob, 'renderJs' | 'timeoutMs' | 'waitForMs' | 'waitForSelector'>;

/** Checks the rendering fields (E009 for values the rules refuse) and translates them for the job. */
function renderOptions(body: ScrapeBody): RenderOptions {
  const { render_js: renderJs = 'auto', wait_for: waitFor, wait_for_selector: selector, timeout } = body;
  if (renderJs !== true && renderJs !== false && renderJs !== 'auto') throw new ApiError('E009', "render_js must be 'auto', true or false");
  const wholeMs = (v: number | undefined, min: number, max: number) => v === undefined || (Number.isInteger(v) && v >= min && v <= max);
  if (!wholeMs(timeout, 1_000, RENDER_TIMEOUT_MAX_MS)) throw new ApiError('E009', `timeout must be a whole number of milliseconds from 1000 to ${RENDER_TIMEOUT_MAX_MS}`);
  if (!wholeMs(waitFor, 0, RENDER_WAIT_FOR_MAX_MS)) throw new ApiError('E009', `wait_for must be a whole number of milliseconds from 0 to ${RENDER_WAIT_FOR_MAX_MS}`);
  if (selector !== undefined && (!selector.trim() || selector.length > 1_000)) throw new ApiError('E009', 'wait_for_selector must be a CSS selector of 1 to 1000 characters');
  if (renderJs === false && (waitFor !== undefined || selector !== undefined)) throw new ApiError('E009', "wait_for and wait_for_selector need rendering: render_js must be 'auto' or true");
  if (waitFor !== undefined && waitFor >= (timeout ?? RENDER_TIMEOUT_MAX_MS)) throw new ApiError('E009', 'wait_for must be shorter than timeout');
  return {
    renderJs: renderJs === true ? 'always' : renderJs === false ? 'never' : 'auto',
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ...(waitFor ? { waitForMs: waitFor } : {}),
    ...(selector !== undefined ? { waitForSelector: selector.trim() } : {}),
  };
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

/** A schema the worker could not use fails here, before a job is queued or a token spent. */
function assertUsableSchema(schema: Record<string, unknown>): void {
  try {
    compileOutputSchema(schema);
  } catch (err) {
    throw new ApiError('E009', `schema: ${err instanceof LlmError ? err.reason : 'not a usable JSON Schema'}`);
  }
}

export function webScraperRouter(deps: GatewayDeps): Router {
  const { stores, config, logger } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;
  const renderedStatus = new RenderedRecords();
  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: config.SYNC_WINDOW_MS };
  return familyRouter('scraper', logger, (router) => {
    router.use(requireApiKey(stores.apiKeyGate, 'scrape', config.DEFAULT_RATE_LIMIT_PER_MINUTE), jsonObjectBody);

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
      const outputType = body.output_type ?? 'plaintext';
      if (outputType !== 'plaintext' && outputType !== 'markdown') throw new ApiError('E009', "output_type must be 'plaintext' or 'markdown'");
      const useLlm = body.use_llm === true;
      if (useLlm && !body.prompt?.trim()) throw new ApiError('E009', 'prompt is required when use_llm is true');
      if (!useLlm && body.schema) throw new ApiError('E009', 'schema is only allowed with use_llm');
      if (body.schema) assertUsableSchema(body.schema);
      const rendering = renderOptions(body);
      let llmKeyId: string | undefined;
      if (useLlm) {
        const key = await stores.llmKeys.resolve(accountId, body.llm_key_id ?? undefined);
        if (!key) throw new ApiError('E009', body.llm_key_id ? `unknown llm_key_id '${body.llm_key_id}'` : 'no language-model key is registered for this account (POST /account/llm-keys)');
        llmKeyId = key.id;
      }
      if (body.webhook) {
        const problem = await checkUrl(body.webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
        if (problem) throw new ApiError('E009', webhookProblemMessage('webhook', problem));
      }

      const tagged = readTags(body.tags);
      if ('problem' in tagged) throw new ApiError('E009', tagged.problem);

      const requestId = newRequestId();
      setRequestId(res, requestId);
      const payload: ScrapeJob = {
        requestId,
        accountId,
        url: body.url,
        outputType,
        useLlm,
        ...(useLlm ? { prompt: body.prompt, llmKeyId, ...(body.schema ? { schema: body.schema } : {}) } : {}),
        ...(body.webhook ? { webhook: body.webhook } : {}),
        ...rendering,
      };
      const outcome = await submitAndWait(stores, deps.recordEndings, {
        family: 'scrape',
        requestId,
        accountId,
        input: { url: body.url, outputType, useLlm, ...(useLlm ? { prompt: body.prompt, llmKeyId } : {}), ...tagged },
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
