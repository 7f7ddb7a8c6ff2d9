import type { RedisClient as Redis } from '@gleaner/platform';
import { hashApiKey, looksLikeApiKey, type ApiKeyRecord, type Scope } from './accounts.js';
import { ApiKeyLastUsed } from './api-key-last-used.js';
import { Keyspace } from './keyspace.js';
import { rateDecision, SLIDING_LOG_LUA, type RateDecision } from './rate-limiter.js';

export type GateOutcome =
  /** Unknown or revoked key: nothing was counted. */
  | { kind: 'unknown' }
  /** A valid key without the scope the route needs: nothing was counted. */
  | { kind: 'forbidden'; key: ApiKeyRecord }
  /** `rate` null: the request counted against no limit (RateCount 'none'). */
  | { kind: 'admitted'; key: ApiKeyRecord; rate: RateDecision | null };

/**
 * What an admitted request counts against: the key's API limit (every request of the API
 * families), the log of MCP protocol messages (initialize, tools/list, event streams: ten times
 * the key's limit, so a chatty client cannot eat the budget of the work its tools submit), or
 * nothing (the status reads this gateway's own MCP tools make while they wait for a request).
 */
export type RateCount = 'api' | 'mcp-protocol' | 'none';

/** The MCP protocol log's limit, as a multiple of the key's. */
export const MCP_PROTOCOL_LIMIT_FACTOR = 10;
const LIMIT_FACTOR: Record<RateCount, number> = { api: 1, 'mcp-protocol': MCP_PROTOCOL_LIMIT_FACTOR, none: 0 };

/**
 * The key's record (by hash), its scope, its account's override and its account's rate log, all
 * in one script, so authentication and the shared rate limit cost one Redis round trip per request
 * instead of four. Key names come from Keyspace as (before, after) pairs around the id the script
 * reads from the record; they are built inside the script, which is fine on the single Redis (or
 * primary) Gleaner runs on, not on Redis Cluster (BullMQ needs hash tags there too).
 */
const GATE_SCRIPT = `${SLIDING_LOG_LUA}
local raw = redis.call('GET', KEYS[1])
if not raw then return {0} end
local ok, key = pcall(cjson.decode, raw)
if not ok or type(key) ~= 'table' or (key.revokedAt and key.revokedAt ~= cjson.null) then return {0} end
local scoped = ARGV[1] == '*'
for _, scope in ipairs(key.scopes or {}) do
  if scope == ARGV[1] then scoped = true end
end
if not scoped then return {1, raw} end
local factor = tonumber(ARGV[8])
if factor == 0 then return {3, raw} end
local limit = tonumber(ARGV[5])
local account = redis.call('GET', ARGV[6] .. key.accountId .. ARGV[7])
if account then
  local parsed, value = pcall(cjson.decode, account)
  if parsed and type(value) == 'table' and type(value.rateLimitPerMinute) == 'number' then limit = value.rateLimitPerMinute end
end
limit = limit * factor
local decision = slidingLogAdmit(ARGV[2] .. key.accountId .. ARGV[3], limit, tonumber(ARGV[4]))
return {2, raw, decision[1], decision[2], decision[3], limit}
`;

type GateReply = [0] | [1, string] | [2, string, number, number, number, number] | [3, string];
type GateCommand = (...keysThenArgs: Array<string | number>) => Promise<GateReply>;

const ID_MARK = '\u0000';
function around(key: string): [string, string] {
  const [before, after] = key.split(ID_MARK);
  return [before, after];
}

/**
 * API-key admission for the HTTP families: authentication, scope and the rate limit. The limit
 * binds the account, all its keys together (one log per account): per key, an account that made
 * itself 20 keys had 20 times its limit (issue 37: 1,200 requests in 0.5 s at 60/min).
 */
export class ApiKeyGate {
  private readonly keys: Keyspace;
  private readonly lastUsed: ApiKeyLastUsed;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly windowSeconds = 60,
  ) {
    this.keys = new Keyspace(prefix);
    this.lastUsed = new ApiKeyLastUsed(redis, prefix);
    // ioredis sends EVALSHA and falls back to EVAL once per client when Redis lacks the script.
    if (!('gleanerApiKeyGate' in redis)) redis.defineCommand('gleanerApiKeyGate', { lua: GATE_SCRIPT, numberOfKeys: 1 });
  }

  /**
   * No cache: a revoked key or a changed account limit applies to the very next request. `scope`
   * null admits a key of any scope (a key asking about itself).
   */
  async admit(apiKey: string, scope: Scope | null, defaultPerMinute: number, counts: RateCount = 'api'): Promise<GateOutcome> {
    if (!looksLikeApiKey(apiKey)) return { kind: 'unknown' };
    const [logBefore, logAfter] = around(this.keys.rateLog(`${counts === 'mcp-protocol' ? 'mcp-account' : 'account'}:${ID_MARK}`));
    const [accountBefore, accountAfter] = around(this.keys.account(ID_MARK));
    const gate = (this.redis as unknown as { gleanerApiKeyGate: GateCommand }).gleanerApiKeyGate;
    const hashKey = this.keys.apiKeyByHash(hashApiKey(apiKey));
    const reply = await gate.call(this.redis, hashKey, scope ?? '*', logBefore, logAfter, this.windowSeconds * 1000, defaultPerMinute, accountBefore, accountAfter, LIMIT_FACTOR[counts]);
    if (reply[0] === 0) return { kind: 'unknown' };
    const key = JSON.parse(reply[1]) as ApiKeyRecord;
    if (reply[0] === 1) return { kind: 'forbidden', key };
    // Not awaited, and a failed write is not the caller's problem: it only dates the key list.
    this.lastUsed.touch(key.accountId, key.keyId).catch(() => undefined);
    if (reply[0] === 3) return { kind: 'admitted', key, rate: null };
    const [, , allowed, count, resetMs, limit] = reply;
    return { kind: 'admitted', key, rate: rateDecision(allowed === 1, count, limit, resetMs) };
  }
}
