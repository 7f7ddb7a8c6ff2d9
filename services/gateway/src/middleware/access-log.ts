import type { ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from '@gleaner/platform';
import { ctx } from './context.js';
import { routeLabel } from './http-metrics.js';

/** Logged for a request whose client went away before any answer was begun. */
export const CLIENT_CLOSED_REQUEST = 499;

/** Answers written on a request's socket outside express (the request timeout's 408), by response. */
const answeredOnSocket = new WeakMap<ServerResponse, number>();

/** Notes that `status` was answered on `res`'s socket by the server itself, for its access-log line. */
export function noteAnsweredOnSocket(res: ServerResponse, status: number): void {
  answeredOnSocket.set(res, status);
}

/** Probes answer every few seconds (compose healthchecks, Prometheus): their lines are debug. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One JSON line per request once its connection is done with it: the request id (X-Request-ID, the
 * request record's id on submit and status routes), method, route pattern (never the raw path: it
 * may carry ids), status and duration. Nothing from headers or bodies, which carry keys and tokens.
 * `aborted` marks a client that went away before the whole answer was sent (e.g. during the 20 s
 * wait, or halfway through an upload); `status` is what the client was told: 499 (nginx's "client
 * closed request") when no answer was begun, 408 when the request timeout answered for express.
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
        status: answeredOnSocket.get(res) ?? (res.headersSent ? res.statusCode : CLIENT_CLOSED_REQUEST),
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (PROBES.has(route)) logger.debug('http request', line);
      else logger.info('http request', line);
    });
    next();
  };
}
