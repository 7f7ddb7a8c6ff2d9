import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { RequestHandler, Router } from 'express';
import { createGleanerMcpServer, McpHttpSessions, type SessionDirectory, type SessionOwner } from '@gleaner/mcp-server';
import type { GatewayConfig } from '../config.js';
import type { GatewayDeps } from '../deps.js';
import { presentedApiKey, requireApiKey } from '../middleware/auth.js';
import { ctx } from '../middleware/context.js';
import { jsonRpcBody } from '../middleware/json-body.js';
import { familyRouter } from './family-router.js';

/**
 * A session belongs to the API key that opened it and counts against that key's account (see
 * McpHttpSessions' caps); its tools call the API with that key.
 */
export interface McpSessionOwner extends SessionOwner {
  apiKey: string;
}

/**
 * The status reads this gateway's own MCP tools make while they wait for a request: marked with a
 * token only this process knows, and counted against no rate limit (the work was counted when it
 * was submitted; a tool waiting on a long parse would otherwise spend the key's budget).
 */
export class OwnToolReads {
  private static readonly HEADER = 'x-gleaner-own-tool-read';
  private readonly token = randomBytes(24).toString('hex');

  /** The fetch of the tools' Gleaner client: every GET carries the token. */
  readonly fetch: typeof fetch = (input, init = {}) =>
    fetch(input, (init.method ?? 'GET') === 'GET' ? { ...init, headers: { ...(init.headers as Record<string, string>), [OwnToolReads.HEADER]: this.token } } : init);

  /** Marks such a read in the request's context (see requireApiKey). */
  readonly recognise: RequestHandler = (req, res, next) => {
    const presented = req.method === 'GET' ? req.get(OwnToolReads.HEADER) : undefined;
    if (presented && presented.length === this.token.length && timingSafeEqual(Buffer.from(presented), Buffer.from(this.token))) ctx(res).ownToolRead = true;
    next();
  };
}

/**
 * The MCP sessions of this gateway. Their tools call this gateway's own API over loopback with
 * the caller's key, so a tool call is authorised, scoped, rate-limited and answered exactly as
 * the same call made directly would be (a parse-only key gets the scraper's 403 as a tool error).
 */
export function createMcpSessions(config: GatewayConfig, ownUrl: () => string, toolReads: OwnToolReads, directory?: SessionDirectory): McpHttpSessions<McpSessionOwner> {
  return new McpHttpSessions<McpSessionOwner>({
    // In Redis: a session opened on one gateway is resumed by any other (no sticky routing).
    directory,
    createServer: (owner, stopping) => createGleanerMcpServer({ baseUrl: ownUrl(), apiKey: owner.apiKey, pollMs: config.MCP_POLL_MS, fetch: toolReads.fetch, stopping }),
    idleMs: config.MCP_SESSION_IDLE_MS,
    maxPerOwner: config.MCP_SESSIONS_PER_KEY,
    maxPerAccount: config.MCP_SESSIONS_PER_ACCOUNT,
  });
}

/**
 * `/mcp`: Gleaner's tools for AI agents over MCP's Streamable HTTP transport (POST messages, GET
 * event stream, DELETE session). Every request authenticates like the rest of the API (x-api-key,
 * or `Authorization: Bearer <key>` as MCP clients send tokens; any scope); protocol messages count
 * in a log of their own, not against the key's API limit, which the tools' submits spend;
 * refusals are JSON-RPC error bodies.
 */
export function mcpRouter(deps: GatewayDeps, sessions: McpHttpSessions<McpSessionOwner>): Router {
  const { stores, config, logger } = deps;
  return familyRouter('mcp', logger, (router) => {
    router.use(requireApiKey(stores.apiKeyGate, null, config.DEFAULT_RATE_LIMIT_PER_MINUTE, { acceptBearer: true, counts: 'mcp-protocol' }), jsonRpcBody);
    router.all('/', async (req, res) => {
      await sessions.handle(req, res, req.body, { id: ctx(res).keyId!, accountId: ctx(res).accountId!, apiKey: presentedApiKey(req, true)! });
    });
  });
}

/** Where this gateway answers for its own MCP tools: a wildcard bind address is reached on loopback. */
export function ownApiUrl(address: AddressInfo): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
