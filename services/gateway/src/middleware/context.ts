import type { Request, Response } from 'express';
import { isRequestId } from '@gleaner/platform';
import type { Scope } from '@gleaner/store';
import type { ApiFamily } from '../errors/index.js';

/** Per-request state shared by the middleware chain, kept in `res.locals`. */
export interface RequestContext {
  requestId: string;
  family: ApiFamily;
  accountId?: string;
  keyId?: string;
  scopes?: Scope[];
  /** Bot webhook only: the platform token, passed through and never stored. */
  bearerToken?: string;
  /** A status read by one of this gateway's own MCP tools: counted against no rate limit. */
  ownToolRead?: boolean;
}

export function ctx(res: Response): RequestContext {
  return res.locals as RequestContext;
}

/**
 * Sets the id echoed in `X-Request-ID`; submit routes use it as the request record's id. Status
 * routes pass the id from the path, which may be anything (control characters would throw in
 * setHeader, a 10 KB string would be echoed): only a well-formed request id replaces the one
 * generated for the answer.
 */
export function setRequestId(res: Response, id: string): void {
  if (!isRequestId(id)) return;
  ctx(res).requestId = id;
  res.setHeader('X-Request-ID', id);
}

export function accountIdOf(res: Response): string {
  const id = ctx(res).accountId;
  if (!id) throw new Error('route reached without authentication');
  return id;
}

export type { Request };
