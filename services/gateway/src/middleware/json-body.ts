import express, { type RequestHandler } from 'express';
import { ApiError } from '../errors/index.js';
import { JSONRPC_INVALID_REQUEST } from '../errors/mcp-errors.js';

/** Request bodies are capped at 100 KB (SPEC "Limits") and must be JSON objects. */
export const BODY_LIMIT = '100kb';

const parseJson = express.json({ limit: BODY_LIMIT, strict: true, type: () => true });

/** A batch's body carries up to BATCH_MAX_URLS URLs of up to 4 KB each: it alone may be larger. */
export const BATCH_BODY_LIMIT = '4mb';
const parseLargeJson = express.json({ limit: BATCH_BODY_LIMIT, strict: true, type: () => true });

/**
 * Parses every POST body as JSON whatever its declared type (clients often omit the header), so
 * "not JSON" is one clear 400 and an oversize body one clear 413, before any work is done.
 */
export const jsonObjectBody: RequestHandler = (req, res, next) => objectBody(parseJson, req, res, next);

/** `jsonObjectBody` with the batch's larger limit. */
export const largeJsonObjectBody: RequestHandler = (req, res, next) => objectBody(parseLargeJson, req, res, next);

function objectBody(parse: RequestHandler, ...[req, res, next]: Parameters<RequestHandler>): void {
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') return next();
  parse(req, res, (err?: unknown) => {
    if (err) return next(err);
    const body: unknown = req.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      return next(new ApiError('invalid_json', 'Request body must be a JSON object'));
    }
    next();
  });
}

/**
 * For actions that take no parameters (`POST /account/webhook-secret/rotate`): a request without
 * a body (`curl -X POST`, no Content-Length) is an empty object; a body that is sent must still be
 * a JSON object.
 */
export const optionalJsonObjectBody: RequestHandler = (req, res, next) => {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.body = {};
    return next();
  }
  jsonObjectBody(req, res, next);
};

/**
 * JSON-RPC bodies (`/mcp`): any JSON (a message is an object, a batch an array), same 100 KB limit.
 * An empty batch is one Invalid Request error, as JSON-RPC 2.0 says (the SDK took `[]` for a batch
 * of notifications and answered 202 with no body).
 */
export const jsonRpcBody: RequestHandler = (req, res, next) => {
  if (req.method !== 'POST') return next();
  parseJson(req, res, (err?: unknown) => {
    if (err) return next(err);
    if (Array.isArray(req.body) && req.body.length === 0) return next(new ApiError(JSONRPC_INVALID_REQUEST, 'an empty batch holds no message'));
    next();
  });
};
