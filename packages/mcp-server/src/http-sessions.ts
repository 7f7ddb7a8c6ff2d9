import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** Who opened a session: only requests authenticated as the same owner may use it. */
export interface SessionOwner {
  id: string;
  /** The tenant the owner belongs to (the gateway: an API key's account), capped as a whole. */
  accountId: string;
}

export interface McpHttpSessionsOptions<O extends SessionOwner> {
  /**
   * The MCP server of a new session, acting for its owner. `stopping` is aborted by closeAll:
   * its calls still running must then answer (a tool error naming the shutdown).
   */
  createServer(owner: O, stopping: AbortSignal): McpServer;
  /** A session with no request open for this long is closed. */
  idleMs: number;
  /** Sessions one owner may hold; opening one more closes that owner's least recently used. */
  maxPerOwner: number;
  /** Sessions all the owners of one account may hold; one more closes the account's least recently used. */
  maxPerAccount: number;
  /**
   * Where sessions are recorded for every process that serves the endpoint (the gateway's: Redis),
   * so that any of them resumes a session another opened, and none needs requests routed to the one
   * that did. Without it a session lives in this process only.
   */
  directory?: SessionDirectory;
}

/** What a process needs to resume a session another opened: whose it is and what its initialize said. */
export interface SharedSession {
  ownerId: string;
  accountId: string;
  /** The initialize request's params (protocol version, client capabilities and info). */
  initialize: { protocolVersion?: string; capabilities?: unknown; clientInfo?: unknown };
}

export interface SessionDirectory {
  /** Records a session opened here, for MCP_SESSION_IDLE_MS from its last request. */
  opened(id: string, session: SharedSession): Promise<void>;
  /** The session as recorded, its lifetime renewed; null when it ended (deleted, idle) or never was. */
  touch(id: string): Promise<SharedSession | null>;
  /** The session ended for good (deleted by its client, or evicted over a cap). */
  ended(id: string): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  ownerId: string;
  accountId: string;
  /** HTTP requests of this session still open (a long tool call, a GET event stream). */
  open: number;
  /** POSTs among them: messages whose answers have not all gone out yet. */
  posts: number;
  lastActive: number;
}

/** Sessions whose end is remembered, to tell their owner why with the 404; the oldest are forgotten first. */
const ENDED_REMEMBERED = 10_000;
/** How long closeAll waits for the answers of the calls it ended. */
const CLOSE_GRACE_MS = 5_000;

/**
 * MCP's Streamable HTTP transport with sessions, for node's http (express passes its req/res).
 * Sessions, not the SDK's stateless mode: a client cancels a call with a notification sent in a
 * request of its own, which only the server that runs the call can act on; a stateless server is
 * a new one for every request. With a `directory` (the gateway's, in Redis) a session is recorded
 * for every process: a request for a session this process does not hold resumes it here (a new
 * server, initialized as the session's initialize said), so gateways behind a load balancer need
 * no sticky routing. A call runs where its request went, and its progress goes back on that
 * request's stream; a cancellation that reaches another process than the call's is not acted on
 * (the call runs to its end). Without a directory, a request whose session this process does not
 * hold answers 404, which tells the client to start a new one.
 */
export class McpHttpSessions<O extends SessionOwner> {
  private readonly sessions = new Map<string, Session>();
  /** Why this process ended a session (evicted, idle), kept for its owner's next request. */
  private readonly ended = new Map<string, { ownerId: string; reason: string }>();
  private readonly stopping = new AbortController();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpHttpSessionsOptions<O>) {
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(1_000, Math.min(options.idleMs / 2, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** One request to the MCP endpoint (POST, GET or DELETE); `body` is the parsed JSON of a POST. */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, owner: O): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = await this.held(sessionId, owner);
      // Another key's session is answered as unknown: its id says nothing to anyone else.
      if (!session || session.ownerId !== owner.id) {
        const ended = this.ended.get(sessionId);
        const why = ended?.ownerId === owner.id ? ended.reason : 'Session not found';
        return jsonRpcError(res, 404, -32001, `${why}: start a new session with initialize`);
      }
      return this.serve(session, req, res, body);
    }
    const initializes = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (req.method === 'POST' && initializes) return this.open(req, res, body, owner);
    return jsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; send initialize first and then the session id it answers with');
  }

  /**
   * Closes every session (shutdown). Calls still running are ended first and their answers (tool
   * errors naming the shutdown) sent, for at most CLOSE_GRACE_MS; then the sessions close, and
   * their open event streams with them, so the HTTP server can close.
   */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopping.abort(new Error('the server is shutting down'));
    const deadline = Date.now() + CLOSE_GRACE_MS;
    while ([...this.sessions.values()].some((s) => s.posts > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([...this.sessions.values()].map((s) => this.close(s)));
  }

  /**
   * The session of `id` as this process holds it: with a directory, only while the directory
   * still has it (its client may have deleted it through another process, or it idled out), and
   * resumed here when another process opened it.
   */
  private async held(id: string, owner: O): Promise<Session | undefined> {
    const local = this.sessions.get(id);
    const directory = this.options.directory;
    if (!directory) return local;
    const shared = await directory.touch(id);
    if (!shared) {
      if (local) await this.close(local, 'Session ended: deleted or idle');
      return undefined;
    }
    if (local || shared.ownerId !== owner.id) return local;
    return this.resume(id, shared, owner);
  }

  /**
   * A session another process opened, served here from now on: a new server and transport, in
   * the state the session's initialize left them (the SDK has no way to hand a session over, so
   * the two fields its initialize sets are set here; mcp-server.test.ts fails if that changes).
   */
  private async resume(id: string, shared: SharedSession, owner: O): Promise<Session> {
    const server = this.options.createServer(owner, this.stopping.signal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const web = (transport as unknown as { _webStandardTransport: { sessionId?: string; _initialized: boolean } })._webStandardTransport;
    web.sessionId = id;
    web._initialized = true;
    const protocol = server.server as unknown as { _clientCapabilities?: unknown; _clientVersion?: unknown };
    protocol._clientCapabilities = shared.initialize.capabilities;
    protocol._clientVersion = shared.initialize.clientInfo;
    const session: Session = { transport, server, ownerId: owner.id, accountId: owner.accountId, open: 0, posts: 0, lastActive: Date.now() };
    transport.onclose = () => {
      if (this.sessions.get(id) === session) this.sessions.delete(id);
    };
    await server.connect(transport);
    this.sessions.set(id, session);
    return session;
  }

  private async open(req: IncomingMessage, res: ServerResponse, body: unknown, owner: O): Promise<void> {
    const server = this.options.createServer(owner, this.stopping.signal);
    const initialize = (Array.isArray(body) ? body.find((m) => isInitializeRequest(m)) : body) as { params?: SharedSession['initialize'] };
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: async (id) => {
        this.sessions.set(id, session);
        this.evictOverLimit(session);
        const { protocolVersion, capabilities, clientInfo } = initialize.params ?? {};
        await this.options.directory?.opened(id, { ownerId: owner.id, accountId: owner.accountId, initialize: { protocolVersion, capabilities, clientInfo } });
      },
    });
    const session: Session = { transport, server, ownerId: owner.id, accountId: owner.accountId, open: 0, posts: 0, lastActive: Date.now() };
    // Chained by the server's connect: DELETE, close() and closeAll() all end here.
    transport.onclose = () => {
      if (transport.sessionId && this.sessions.get(transport.sessionId) === session) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await this.serve(session, req, res, body);
    // An initialize that failed (bad protocol version, bad JSON) created no session.
    if (!transport.sessionId || !this.sessions.has(transport.sessionId)) await server.close().catch(() => undefined);
  }

  private async serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const post = req.method === 'POST';
    session.open++;
    if (post) session.posts++;
    session.lastActive = Date.now();
    res.once('close', () => {
      session.open--;
      if (post) session.posts--;
      session.lastActive = Date.now();
    });
    await session.transport.handleRequest(req, res, body);
    // Its client ended it: for every process (a process's idle sweep or shutdown ends only its copy).
    if (req.method === 'DELETE' && session.transport.sessionId) await this.options.directory?.ended(session.transport.sessionId).catch(() => undefined);
  }

  private evictOverLimit(newest: Session): void {
    for (const [session, reason] of this.sessionsOverCaps(newest)) {
      void this.close(session, reason);
      if (session.transport.sessionId) void this.options.directory?.ended(session.transport.sessionId).catch(() => undefined);
    }
  }

  /**
   * Every session cap, in this one place: the sessions to close now that `newest` is open. Over
   * its owner's cap or its account's, the newest stays and the least recently used go, idle ones
   * first: the owner's own first, then any of the account's (an account's many keys cannot hold
   * more than its cap: issue 37, 500 keys held 5,000 sessions). Each with the reason its owner is told.
   */
  private sessionsOverCaps(newest: Session): Map<Session, string> {
    const sameAccount = [...this.sessions.values()]
      .filter((s) => s.accountId === newest.accountId && s !== newest)
      .sort((a, b) => Number(a.open > 0) - Number(b.open > 0) || a.lastActive - b.lastActive);
    const sameOwner = sameAccount.filter((s) => s.ownerId === newest.ownerId);
    const closing = new Map<Session, string>();
    const ownerReason = `Session ended: this API key opened more than ${this.options.maxPerOwner} MCP sessions (MCP_SESSIONS_PER_KEY), and this was its least recently used`;
    for (const session of sameOwner.slice(0, Math.max(0, sameOwner.length + 1 - this.options.maxPerOwner))) closing.set(session, ownerReason);
    const staying = sameAccount.filter((s) => !closing.has(s));
    const accountReason = `Session ended: this account's API keys opened more than ${this.options.maxPerAccount} MCP sessions (MCP_SESSIONS_PER_ACCOUNT), and this was its least recently used`;
    for (const session of staying.slice(0, Math.max(0, staying.length + 1 - this.options.maxPerAccount))) closing.set(session, accountReason);
    return closing;
  }

  private closeIdle(): void {
    const cutoff = Date.now() - this.options.idleMs;
    const reason = `Session ended after ${secondsOrMinutes(this.options.idleMs)} without a request (MCP_SESSION_IDLE_MS)`;
    for (const session of this.sessions.values()) if (session.open === 0 && session.lastActive < cutoff) void this.close(session, reason);
  }

  /** Closes a session; `reason`, when given, is what its owner's next request with its id is told. */
  private async close(session: Session, reason?: string): Promise<void> {
    const id = session.transport.sessionId;
    if (id) {
      this.sessions.delete(id);
      if (reason) this.remember(id, session.ownerId, reason);
    }
    await session.server.close().catch(() => undefined);
  }

  private remember(id: string, ownerId: string, reason: string): void {
    this.ended.set(id, { ownerId, reason });
    if (this.ended.size > ENDED_REMEMBERED) this.ended.delete(this.ended.keys().next().value!);
  }
}

function secondsOrMinutes(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} minutes` : `${Number((ms / 1000).toFixed(1))} s`;
}

/** The SDK's own error shape for transport-level refusals (no id: it answers no particular request). */
function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
