import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

/** A session as every gateway reads it (the shape of @gleaner/mcp-server's SharedSession). */
export interface StoredMcpSession {
  ownerId: string;
  accountId: string;
  initialize: { protocolVersion?: string; capabilities?: unknown; clientInfo?: unknown };
}

/**
 * MCP sessions in Redis, for every gateway: any of them resumes a session another opened (see
 * McpHttpSessions' directory). Each lives MCP_SESSION_IDLE_MS from its last request, whichever
 * gateway served it; a client's DELETE or an eviction over a cap removes it for all.
 */
export class McpSessionDirectory {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly idleMs: number,
  ) {
    this.keys = new Keyspace(prefix);
  }

  async opened(id: string, session: StoredMcpSession): Promise<void> {
    await this.redis.set(this.keys.mcpSession(id), JSON.stringify(session), 'PX', this.idleMs);
  }

  async touch(id: string): Promise<StoredMcpSession | null> {
    const key = this.keys.mcpSession(id);
    const [[, raw]] = (await this.redis.multi().get(key).pexpire(key, this.idleMs).exec()) as [[Error | null, string | null], unknown];
    return raw ? (JSON.parse(raw) as StoredMcpSession) : null;
  }

  async ended(id: string): Promise<void> {
    await this.redis.del(this.keys.mcpSession(id));
  }
}
