import type { Request, RequestHandler } from 'express';
import { httpRequestDuration } from '@gleaner/platform';

/**
 * The route label: the matched route pattern (`/web-scrapper/:requestId`), the router's mount
 * path when a router answered before any route matched (auth, 404 inside a family), or
 * `unmatched`. Never the raw path: ids would explode the label set. A router's root route has
 * no trailing slash, so `POST /web-scrapper/` and a 401 from the same router share `/web-scrapper`.
 */
export function routeLabel(req: Request): string {
  if (req.route?.path === undefined) return req.baseUrl || 'unmatched';
  const path = String(req.route.path);
  return `${req.baseUrl}${path === '/' ? '' : path}` || '/';
}

/** Latency histogram per method, route pattern and status. */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    httpRequestDuration.observe({ method: req.method, route: routeLabel(req), status: String(res.statusCode) }, Number(process.hrtime.bigint() - started) / 1e9);
  });
  next();
};
