import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '@gleaner/platform';
import { ApiError, errorTables, type ApiFamily } from '../errors/index.js';
import { ctx } from './context.js';
import { isStorageUnavailable } from './storage-errors.js';

/** Translates body-parser failures, storage outages and unexpected errors into the family's format. */
export function familyErrorHandler(family: ApiFamily, logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiError: ApiError;
    const bodyErrorType = (err as { type?: string }).type;
    if (err instanceof ApiError) apiError = err;
    else if (bodyErrorType === 'entity.too.large') apiError = new ApiError('payload_too_large');
    else if (bodyErrorType === 'entity.parse.failed' || bodyErrorType === 'encoding.unsupported' || bodyErrorType === 'charset.unsupported') apiError = new ApiError('invalid_json');
    // The router could not percent-decode a path parameter (`/web-scrapper/%ff`): no such id exists.
    else if (err instanceof URIError) apiError = new ApiError('not_found');
    // Other client faults while reading the body (a Content-Encoding the bytes do not match, a
    // body shorter than its Content-Length) come from body-parser as 4xx errors without a type.
    else if (isClientFault(err)) apiError = new ApiError('invalid_json');
    else if (isStorageUnavailable(err)) {
      logger.warn('storage unavailable', { requestId: ctx(res).requestId, error: (err as Error).message });
      apiError = new ApiError('storage_unavailable');
    } else {
      logger.error('unhandled error', { requestId: ctx(res).requestId, error: err });
      apiError = new ApiError('internal');
    }
    const rendered = errorTables[family].render(apiError, ctx(res).requestId);
    if (res.headersSent) return;
    // Answered before its body was read whole (an upload refused halfway): the connection closes
    // with the answer. Kept alive, Node would read the rest of the body, and a slow one would then
    // meet the request timeout and get a second answer on the same connection.
    if (!req.complete) res.set('Connection', 'close');
    res.status(rendered.status).set(rendered.headers ?? {}).json(rendered.body);
  };
}

function isClientFault(err: unknown): boolean {
  const status = (err as { status?: unknown; expose?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && (err as { expose?: unknown }).expose === true;
}

/** Unknown paths under a family answer 404 in that family's format. */
export function familyNotFound(): RequestHandler {
  return () => {
    throw new ApiError('not_found', 'No such endpoint');
  };
}
