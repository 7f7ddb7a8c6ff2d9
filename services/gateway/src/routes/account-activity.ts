import type { Request, Router } from 'express';
import { accountRequestDetail, accountRequestSummary, webhookDeliveryView, type SiteJobResults } from '@gleaner/record-views';
import { RequestsCursorError, USAGE_DAYS_KEPT, type RequestRecord } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { accountIdOf } from '../middleware/context.js';

/** A crawl's results in one detail answer: no more bytes than this (one result at least). */
const SITE_RESULTS_BYTES = 8 * 1024 * 1024;

/** A whole number query parameter within bounds, or its default; anything else is E009. */
function intQuery(req: Request, name: string, min: number, max: number, fallback: number): number {
  const raw = req.query[name];
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new ApiError('E009', `${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function cursorQuery(req: Request): string | undefined {
  const raw = req.query.cursor;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.length > 500) throw new ApiError('E009', 'cursor must be the cursor of a previous page');
  return raw;
}

/**
 * What an account did: usage per day, its recent requests across families (newest first, with the
 * result of each), and the webhook deliveries of those requests. Read by the console.
 */
export function addAccountActivityRoutes(router: Router, { stores, config }: GatewayDeps): void {
  router.get('/usage/daily', async (req, res) => {
    const days = intQuery(req, 'days', 1, USAGE_DAYS_KEPT, 30);
    res.json({ days: await stores.usage.readDaily(accountIdOf(res), days) });
  });

  /** A crawl's or batch's counters (undefined for the other families, which have none). */
  const countersOf = (record: RequestRecord) => (record.family === 'crawl' || record.family === 'batch' ? stores.crawls.counters(record.id) : Promise.resolve(undefined));

  router.get('/requests', async (req, res) => {
    const limit = intQuery(req, 'limit', 1, 100, 25);
    try {
      const page = await stores.accountRequests.recent(accountIdOf(res), { limit, after: cursorQuery(req) });
      const counters = await Promise.all(page.records.map(countersOf));
      res.json({ requests: page.records.map((record, i) => accountRequestSummary(record, counters[i])), ...(page.cursor ? { cursor: page.cursor } : {}) });
    } catch (err) {
      if (err instanceof RequestsCursorError) throw new ApiError('E009', 'cursor must be the cursor of a previous page');
      throw err;
    }
  });

  // A crawl or batch comes with its counts and a page of its results (cursor, limit), as its status endpoint gives them.
  router.get('/requests/:id', async (req, res) => {
    const from = intQuery(req, 'cursor', 0, 999_999, 0);
    const limit = intQuery(req, 'limit', 0, 100, 25);
    const record = await stores.accountRequests.find(accountIdOf(res), String(req.params.id));
    if (!record) throw new ApiError('E002', 'No such request on this account (or it expired)', { status: 404 });
    let site: SiteJobResults | undefined;
    if (record.family === 'crawl' || record.family === 'batch') {
      const [counters, listed] = await Promise.all([
        stores.crawls.counters(record.id),
        limit > 0 ? stores.crawls.entries(record.id, from, limit, SITE_RESULTS_BYTES) : stores.crawls.listedCount(record.id).then((total) => ({ entries: [], total })),
      ]);
      site = { counters, entries: listed.entries, from, total: listed.total };
    }
    res.json(accountRequestDetail(record, config.NODE_ENV === 'development', site));
  });

  // Deliveries are kept on the requests they deliver: these are those of the recent requests.
  router.get('/webhook-deliveries', async (req, res) => {
    const limit = intQuery(req, 'limit', 1, 100, 50);
    const { records } = await stores.accountRequests.recent(accountIdOf(res), { limit });
    const deliveries = records.flatMap((record) => {
      const request = { request_id: record.id, family: record.family, created_at: record.createdAt };
      return [
        ...(record.webhook ? [{ ...request, ...webhookDeliveryView(record.webhook) }] : []),
        ...Object.entries(record.subscriptionDeliveries ?? {}).map(([id, d]) => ({ ...request, subscription_id: id, ...webhookDeliveryView(d) })),
      ];
    });
    res.json({ deliveries });
  });
}
