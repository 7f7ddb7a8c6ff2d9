import type { Request, Router } from 'express';
import { accountRequestDetail, accountRequestSummary, webhookDeliveryView } from '@gleaner/record-views';
import { RequestsCursorError, USAGE_DAYS_KEPT } from '@gleaner/store';
import type { GatewayDeps } from '../deps.js';
import { ApiError } from '../errors/index.js';
import { accountIdOf } from '../middleware/context.js';

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

  router.get('/requests', async (req, res) => {
    const limit = intQuery(req, 'limit', 1, 100, 25);
    try {
      const page = await stores.accountRequests.recent(accountIdOf(res), { limit, after: cursorQuery(req) });
      res.json({ requests: page.records.map(accountRequestSummary), ...(page.cursor ? { cursor: page.cursor } : {}) });
    } catch (err) {
      if (err instanceof RequestsCursorError) throw new ApiError('E009', 'cursor must be the cursor of a previous page');
      throw err;
    }
  });

  router.get('/requests/:id', async (req, res) => {
    const record = await stores.accountRequests.find(accountIdOf(res), String(req.params.id));
    if (!record) throw new ApiError('E002', 'No such request on this account (or it expired)', { status: 404 });
    res.json(accountRequestDetail(record, config.NODE_ENV === 'development'));
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
