import type { RequestHandler } from 'express';
import type { Logger } from '@gleaner/platform';
import { ctx } from './context.js';
import { routeLabel } from './http-metrics.js';

/** Probes answer every few seconds (compose healthchecks, Prometheus): their lines are debug. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One JSON line per request once its connection is done with it: the request id (X-Request-ID, the
 * request record's id on submit and status routes), method, route pattern (never the raw path: it
 * may carry ids), status and duration. Nothing from headers or bodies, which carry keys and tokens.
 * `aborted` marks a client that went away before the answer was sent (e.g. during the 20 s wait).
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const route = routeLabel(req);
      const line = {
        requestId: ctx(res).requestId,
        method: req.method,
        route,
        status: res.statusCode,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (PROBES.has(route)) logger.debug('http request', line);
      else logger.info('http request', line);
    });
    next();
  };
}
