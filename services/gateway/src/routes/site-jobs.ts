import Joi from 'joi';
import type { Request, Response, Router } from 'express';
import { isRequestId, newRequestId } from '@gleaner/platform';
import { crawlSliceJobId, type CrawlJob, type CrawlOptions, type MapJob, type SiteScopeOptions } from '@gleaner/queues';
import { crawlStatusBody, mapStatusBody, type CrawlRecord, type MapRecord } from '@gleaner/record-views';
import { normalizeUrl, pathPatternProblem, urlKey } from '@gleaner/site-crawl';
import { hasEnded, RECORD_LIFETIME_SECONDS, type CrawlCandidate } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { accountIdOf, setRequestId } from '../middleware/context.js';
import { readTags } from '../request-tags.js';
import { idempotentSubmitOf, REPLAYED_HEADER, replayOf, reusedKeyError, type IdempotentSubmit } from '../idempotency.js';
import { submitWindowMs, waitForEndWhenPreferred } from '../preferences.js';
import { submitAndWait } from '../submit.js';
import { checkUrl, httpUrlOrNull, URL_PROBLEM_MESSAGES, webhookProblemMessage } from '../url-policy.js';
import { pageOptionKeys, pageOptionsOf, type PageOptionFields } from './page-options.js';

/** A status answer carries at most this many results, and no more than this many bytes of them (one at least). */
const STATUS_PAGE_ENTRIES = 100;
const STATUS_PAGE_BYTES = 8 * 1024 * 1024;
/** A cancel waits this long for the running slice to stop before it answers. */
const CANCEL_WAIT_MS = 5_000;
const DEFAULT_MAX_CONCURRENCY = 5;
const DEFAULT_MAP_LIMIT = 5_000;
const MAX_PATH_PATTERNS = 50;
/** The oldest a running crawl can be (its record's lifetime): older admissions are stale. */
const CRAWL_MAX_AGE_MS = RECORD_LIFETIME_SECONDS.crawl.fromCreation * 1000;

const scopeKeys = {
  include_paths: Joi.array().items(Joi.string()),
  exclude_paths: Joi.array().items(Joi.string()),
  allow_subdomains: Joi.boolean().strict(),
  allow_external: Joi.boolean().strict(),
  sitemap: Joi.string(),
  ignore_query: Joi.boolean().strict(),
};

interface ScopeFields {
  include_paths?: string[];
  exclude_paths?: string[];
  allow_subdomains?: boolean;
  allow_external?: boolean;
  sitemap?: string;
  ignore_query?: boolean;
}

interface CrawlBody extends PageOptionFields, ScopeFields {
  url: string;
  limit?: number;
  max_depth?: number;
  max_concurrency?: number;
  webhook?: string | null;
  tags?: unknown;
}

interface BatchBody extends PageOptionFields {
  urls: string[];
  max_concurrency?: number;
  webhook?: string | null;
  tags?: unknown;
}

interface MapBody extends ScopeFields {
  url: string;
  limit?: number;
  tags?: unknown;
}

const crawlBodySchema = Joi.object({
  url: Joi.string().required(),
  limit: Joi.number().strict(),
  max_depth: Joi.number().strict(),
  max_concurrency: Joi.number().strict(),
  webhook: Joi.string().allow(null),
  ...scopeKeys,
  ...pageOptionKeys,
}).unknown(true);

const batchBodySchema = Joi.object({
  urls: Joi.array().items(Joi.string()).required(),
  max_concurrency: Joi.number().strict(),
  webhook: Joi.string().allow(null),
  ...pageOptionKeys,
}).unknown(true);

const mapBodySchema = Joi.object({ url: Joi.string().required(), limit: Joi.number().strict(), ...scopeKeys }).unknown(true);

/** Types first (E001), as every submit of the family checks them. */
function shapeOf<T>(schema: Joi.ObjectSchema, body: unknown): T {
  const { error, value } = schema.validate(body, { abortEarly: true, convert: false });
  if (error) throw new ApiError('E001', error.details[0].message.replace(/"/g, "'"));
  return value as T;
}

function wholeNumber(name: string, value: number | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min || value > max) throw new ApiError('E009', `${name} must be a whole number from ${min} to ${max}`);
  return value;
}

function scopeOf(body: ScopeFields): SiteScopeOptions {
  for (const field of ['include_paths', 'exclude_paths'] as const) {
    const patterns = body[field] ?? [];
    if (patterns.length > MAX_PATH_PATTERNS) throw new ApiError('E009', `${field} takes at most ${MAX_PATH_PATTERNS} patterns`);
    patterns.forEach((p, i) => {
      const problem = pathPatternProblem(p);
      if (problem) throw new ApiError('E009', `${field}[${i}] ${problem}`);
    });
  }
  const sitemap = body.sitemap ?? 'include';
  if (sitemap !== 'include' && sitemap !== 'skip' && sitemap !== 'only') throw new ApiError('E009', "sitemap must be 'include', 'skip' or 'only'");
  return {
    ...(body.include_paths?.length ? { includePaths: body.include_paths } : {}),
    ...(body.exclude_paths?.length ? { excludePaths: body.exclude_paths } : {}),
    allowSubdomains: body.allow_subdomains === true,
    allowExternal: body.allow_external === true,
    sitemap,
    ignoreQuery: body.ignore_query === true,
  };
}

/** How many results a status read answers at most (`limit`, 0 to STATUS_PAGE_ENTRIES: 0 reads the state and counts alone). */
function resultLimitOf(req: Request): number {
  const raw = req.query.limit;
  if (raw === undefined || raw === '') return STATUS_PAGE_ENTRIES;
  const n = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 0 && n <= STATUS_PAGE_ENTRIES)) throw new ApiError('E009', `limit must be a whole number from 0 to ${STATUS_PAGE_ENTRIES}`);
  return n;
}

/** The cursor of a status read: an entry index a previous answer gave as `next` (0: from the start). */
function cursorOf(req: Request): number {
  const raw = req.query.cursor;
  if (raw === undefined || raw === '') return 0;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw)) throw new ApiError('E009', 'cursor must be a value a previous answer gave as next');
  return Number(raw);
}

/**
 * Crawls, batches and maps (issue 40): `POST /crawl`, `GET|DELETE /crawl/{id}`, `POST /batch`,
 * `GET|DELETE /batch/{id}`, `POST /map`, `GET /map/{id}`, registered on the scraper family's
 * router (its key check, rate limit and error format). Crawls and batches answer 202 at once and
 * run in slices on the crawl queue; their status endpoint reads the record, the counters and the
 * listed results (CrawlState) from a cursor. A map waits the 20 s window like a scrape.
 */
export function registerSiteJobRoutes(router: Router, deps: GatewayDeps): void {
  const { stores, config } = deps;
  const allowPrivate = config.GLEANER_ALLOW_PRIVATE_NETWORKS;

  async function checkedWebhook(webhook: string | null | undefined): Promise<string | undefined> {
    if (!webhook) return undefined;
    const problem = await checkUrl(webhook, { allowPrivateNetworks: allowPrivate, requireHttps: true });
    if (problem) throw new ApiError('E009', webhookProblemMessage('webhook', problem));
    return webhook;
  }

  const idempotencyDeps = { records: stores.records, idempotencyKeys: stores.idempotencyKeys, endings: deps.recordEndings, windowMs: 0 };

  /**
   * The answer to a submit whose Idempotency-Key already started crawl or batch `requestId`: 202
   * as its own submit answered while it runs, its state without results once it has ended (as a
   * scrape's retry answers its result). False when the request is gone (the key is free again).
   */
  async function answerReplay(res: Response, family: CrawlJob['family'], requestId: string): Promise<boolean> {
    const record = (await stores.records.get(family, requestId)) as unknown as CrawlRecord | null;
    if (!record) return false;
    setRequestId(res, requestId);
    res.set(REPLAYED_HEADER, 'true');
    if (!hasEnded(record.status)) {
      const { url, urls } = record.input;
      res.status(202).json({ request_id: requestId, status: 'processing', ...(url !== undefined ? { url } : { urls }) });
    } else {
      res.status(200).type('application/json').send(await siteJobStatusAnswer(record, 0, 0));
    }
    return true;
  }

  /** A crawl's or batch's status body with at most `maxEntries` of its results from `from` on. */
  async function siteJobStatusAnswer(record: CrawlRecord, from: number, maxEntries: number): Promise<string> {
    const [counters, listed] = await Promise.all([
      stores.crawls.counters(record.id),
      maxEntries > 0 ? stores.crawls.entries(record.id, from, maxEntries, STATUS_PAGE_BYTES) : stores.crawls.listedCount(record.id).then((total) => ({ entries: [], total })),
    ]);
    return crawlStatusBody(record, counters, listed.entries, from, listed.total);
  }

  /** Whether the submit's Idempotency-Key already started a crawl or batch, which is then answered. */
  async function replayedSiteJob(res: Response, family: CrawlJob['family'], accountId: string, idempotency: IdempotentSubmit | undefined): Promise<boolean> {
    if (!idempotency) return false;
    const replay = await replayOf(idempotencyDeps, family, 'scraper', accountId, idempotency);
    return replay !== null && answerReplay(res, family, replay.requestId);
  }

  /**
   * Starts a crawl or batch: admitted under the account's cap of running ones, its state created
   * (and a batch's URLs queued), then its record and first slice. 202 at once. With an
   * Idempotency-Key, the route has answered a retry already (before any check that costs); one
   * refused for the account's cap is answered as a retry if its key started a crawl meanwhile, and
   * a submit that loses the race for a new key to another with the same key gives its admission
   * and state back and answers the winner's crawl.
   */
  async function startSiteJob(
    res: Response,
    s: { family: CrawlJob['family']; accountId: string; options: CrawlOptions; input: Record<string, unknown>; seed?: CrawlCandidate[]; answer: Record<string, unknown>; idempotency?: IdempotentSubmit },
  ) {
    const replayed = () => replayedSiteJob(res, s.family, s.accountId, s.idempotency);
    const requestId = newRequestId();
    setRequestId(res, requestId);
    if (!(await stores.crawls.admit(s.accountId, requestId, config.CRAWL_ACCOUNT_MAX_RUNNING, CRAWL_MAX_AGE_MS))) {
      // A retry that raced its first submit past the replay check above is still a retry.
      if (await replayed()) return;
      throw new ApiError('E010', `this account already runs ${config.CRAWL_ACCOUNT_MAX_RUNNING} crawls and batches; wait for one to end, or cancel one`);
    }
    const giveBack = async () => {
      await stores.crawls.release(s.accountId, requestId).catch(() => undefined);
      await stores.crawls.discard(requestId).catch(() => undefined);
    };
    let outcome;
    try {
      const ttl = RECORD_LIFETIME_SECONDS[s.family].fromCreation;
      await stores.crawls.create(requestId, { limit: s.options.limit, maxUrls: Math.max(config.CRAWL_MAX_URLS, s.seed?.length ?? 0), maxBytes: config.CRAWL_MAX_STORED_BYTES }, ttl);
      if (s.seed) await stores.crawls.discover(requestId, s.seed, ttl);
      const payload: CrawlJob = { requestId, accountId: s.accountId, family: s.family, slice: 0, options: s.options };
      outcome = await submitAndWait(stores, deps, {
        family: s.family,
        requestId,
        accountId: s.accountId,
        input: s.input,
        webhookUrl: s.options.webhook,
        producer: deps.producers.crawl,
        payload,
        windowMs: 0,
        jobId: crawlSliceJobId(requestId, 0),
        idempotency: s.idempotency,
      });
    } catch (err) {
      await giveBack();
      throw err;
    }
    if (outcome.replayed) {
      await giveBack();
      if (outcome.reusedWithOtherBody) throw reusedKeyError('scraper');
      if (await answerReplay(res, s.family, outcome.requestId)) return;
      throw new ApiError('E002', 'the request this Idempotency-Key started is gone; send the submit again');
    }
    res.status(202).json({ request_id: requestId, status: 'processing', ...s.answer });
  }

  router.post('/crawl', async (req, res) => {
    const accountId = accountIdOf(res);
    const body = shapeOf<CrawlBody>(crawlBodySchema, req.body);
    const idempotency = idempotentSubmitOf(req, 'scraper');
    if (await replayedSiteJob(res, 'crawl', accountId, idempotency)) return;
    const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
    if (urlProblem) throw new ApiError('E003', URL_PROBLEM_MESSAGES[urlProblem]);
    const limit = wholeNumber('limit', body.limit, 1, config.CRAWL_MAX_LIMIT) ?? Math.min(config.CRAWL_DEFAULT_LIMIT, config.CRAWL_MAX_LIMIT);
    const maxDepth = wholeNumber('max_depth', body.max_depth, 0, 1_000);
    const maxConcurrency = wholeNumber('max_concurrency', body.max_concurrency, 1, config.CRAWL_MAX_CONCURRENCY) ?? Math.min(DEFAULT_MAX_CONCURRENCY, config.CRAWL_MAX_CONCURRENCY);
    const scope = scopeOf(body);
    const page = await pageOptionsOf(body, accountId, stores);
    const webhook = await checkedWebhook(body.webhook);
    const tagged = readTags(body.tags);
    if ('problem' in tagged) throw new ApiError('E009', tagged.problem);
    const options: CrawlOptions = { ...scope, startUrl: body.url, limit, ...(maxDepth !== undefined ? { maxDepth } : {}), maxConcurrency, page, ...(webhook ? { webhook } : {}) };
    await startSiteJob(res, {
      family: 'crawl',
      accountId,
      options,
      input: { url: body.url, outputType: page.outputType, useLlm: page.useLlm, limit, ...tagged },
      answer: { url: body.url },
      idempotency,
    });
  });

  router.post('/batch', async (req, res) => {
    const accountId = accountIdOf(res);
    const body = shapeOf<BatchBody>(batchBodySchema, req.body);
    const idempotency = idempotentSubmitOf(req, 'scraper');
    if (await replayedSiteJob(res, 'batch', accountId, idempotency)) return;
    if (body.urls.length === 0 || body.urls.length > config.BATCH_MAX_URLS) throw new ApiError('E009', `urls must hold 1 to ${config.BATCH_MAX_URLS} URLs`);
    // Each URL's form is checked here; its address when it is fetched (a thousand DNS lookups would hold the answer).
    const seed: CrawlCandidate[] = body.urls.map((url, i) => {
      const parsed = httpUrlOrNull(url);
      const normalized = parsed && normalizeUrl(parsed.href);
      if (!parsed || !normalized) throw new ApiError('E003', `urls[${i}]: ${URL_PROBLEM_MESSAGES.invalid}`);
      parsed.hash = '';
      return { key: urlKey(normalized), url: parsed.href, depth: 0 };
    });
    const maxConcurrency = wholeNumber('max_concurrency', body.max_concurrency, 1, config.CRAWL_MAX_CONCURRENCY) ?? Math.min(DEFAULT_MAX_CONCURRENCY, config.CRAWL_MAX_CONCURRENCY);
    const page = await pageOptionsOf(body, accountId, stores);
    const webhook = await checkedWebhook(body.webhook);
    const tagged = readTags(body.tags);
    if ('problem' in tagged) throw new ApiError('E009', tagged.problem);
    const options: CrawlOptions = { allowSubdomains: false, allowExternal: true, sitemap: 'skip', ignoreQuery: false, maxConcurrency, page, ...(webhook ? { webhook } : {}) };
    await startSiteJob(res, {
      family: 'batch',
      accountId,
      options,
      input: { urls: body.urls.length, outputType: page.outputType, useLlm: page.useLlm, ...tagged },
      seed,
      answer: { urls: body.urls.length },
      idempotency,
    });
  });

  /** A map's answer: its links (200) once ended, its error in the family's status, else 202. */
  const answerMap = (res: Response, requestId: string, url: string, record: MapRecord | null, replayed: boolean) => {
    setRequestId(res, requestId);
    if (replayed) res.set(REPLAYED_HEADER, 'true');
    if (!record) return void res.status(202).json({ request_id: requestId, status: 'processing', url });
    const code = record.error?.code;
    res.status(record.status === 'completed' ? 200 : code === 'E003' || code === 'E009' ? 400 : 500).json(mapStatusBody(record));
  };

  router.post('/map', async (req, res) => {
    const accountId = accountIdOf(res);
    const body = shapeOf<MapBody>(mapBodySchema, req.body);
    const idempotency = idempotentSubmitOf(req, 'scraper');
    const windowMs = submitWindowMs(req, res, config.SYNC_WINDOW_MS);
    if (idempotency) {
      const replay = await replayOf({ ...idempotencyDeps, windowMs }, 'map', 'scraper', accountId, idempotency);
      if (replay) return answerMap(res, replay.requestId, String(replay.record.input.url), replay.ended as MapRecord | null, true);
    }
    const urlProblem = await checkUrl(body.url, { allowPrivateNetworks: allowPrivate, requireHttps: false });
    if (urlProblem) throw new ApiError('E003', URL_PROBLEM_MESSAGES[urlProblem]);
    const limit = wholeNumber('limit', body.limit, 1, config.MAP_MAX_LINKS) ?? Math.min(DEFAULT_MAP_LIMIT, config.MAP_MAX_LINKS);
    const scope = scopeOf(body);
    const tagged = readTags(body.tags);
    if ('problem' in tagged) throw new ApiError('E009', tagged.problem);
    const requestId = newRequestId();
    setRequestId(res, requestId);
    const payload: MapJob = { requestId, accountId, url: body.url, limit, scope };
    const outcome = await submitAndWait(stores, deps, {
      family: 'map',
      requestId,
      accountId,
      input: { url: body.url, limit, ...tagged },
      producer: deps.producers.map,
      payload,
      windowMs,
      idempotency,
    });
    if (outcome.reusedWithOtherBody) throw reusedKeyError('scraper');
    answerMap(res, outcome.requestId, body.url, outcome.record as MapRecord | null, outcome.replayed);
  });

  for (const family of ['crawl', 'batch'] as const) {
    /** The crawl or batch `id` of the caller's account, or E002. */
    const lookup = async (req: Request, res: Response): Promise<CrawlRecord> => {
      const id = String(req.params.requestId);
      setRequestId(res, id);
      if (!isRequestId(id)) throw new ApiError('E002', 'Request ID not found');
      const found = await stores.records.lookup(family, id, accountIdOf(res));
      if (!found.found) throw new ApiError('E002', found.reason === 'expired' ? 'Request ID not found (results are kept 24 hours after the end)' : 'Request ID not found');
      return found.record as unknown as CrawlRecord;
    };
    router.get(`/${family}/:requestId`, async (req, res) => {
      const from = cursorOf(req);
      const limit = resultLimitOf(req);
      const record = await lookup(req, res);
      res.status(200).type('application/json').send(await siteJobStatusAnswer(record, from, limit));
    });

    // Cancel: the running slice stops its fetches and ends the crawl as cancelled, keeping what
    // it listed. When no slice runs (waiting for its turn), the record is ended here, and the
    // slice that comes finishes up. A crawl that already ended is left as it was.
    router.delete(`/${family}/:requestId`, async (req, res) => {
      let record = await lookup(req, res);
      if (!hasEnded(record.status)) {
        const ending = deps.recordEndings.wait(family, record.id, CANCEL_WAIT_MS);
        await stores.crawls.requestCancel(record.id);
        let ended = (await ending.ended) as CrawlRecord | null;
        if (!ended && !(await stores.crawls.leaseHeld(record.id))) {
          ended = (await stores.records.cancel(family, record.id, { reason: 'cancelled by the caller' })) as unknown as CrawlRecord | null;
        }
        record = ended ?? ((await stores.records.get(family, record.id)) as unknown as CrawlRecord | null) ?? record;
      }
      res.status(200).type('application/json').send(await siteJobStatusAnswer(record, 0, 0));
    });
  }

  router.get('/map/:requestId', async (req, res) => {
    const id = String(req.params.requestId);
    setRequestId(res, id);
    if (!isRequestId(id)) throw new ApiError('E002', 'Request ID not found');
    await waitForEndWhenPreferred(req, res, deps, 'map', id, accountIdOf(res));
    const found = await stores.records.lookup('map', id, accountIdOf(res));
    if (!found.found) throw new ApiError('E002', 'Request ID not found');
    res.status(200).json(mapStatusBody(found.record as unknown as MapRecord));
  });
}
