import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId, type AccountLimitsConfig } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { labelProblem } from './labels.js';
import { Sealer } from './sealing.js';
import { unixNow } from './time.js';

export const SCOPES = ['scrape', 'parse', 'account'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Account {
  id: string;
  name: string;
  createdAt: number;
  /** Requests per minute for this account's keys; absent means the service default. */
  rateLimitPerMinute?: number;
}

/**
 * As stored: the webhook secret sealed under GLEANER_SECRET (like LLM keys), so a copy of Redis
 * (a backup, a replica, a dump) cannot sign webhooks. `webhookSecret` is the plain form written
 * before secrets were sealed; it is still read, and replaced by the sealed form on rotation.
 */
interface StoredAccount extends Account {
  sealedWebhookSecret?: string;
  webhookSecret?: string;
}

export interface ApiKeyRecord {
  keyId: string;
  accountId: string;
  scopes: Scope[];
  createdAt: number;
  revokedAt?: number;
  /** First characters of the key, to recognise it in listings. */
  preview: string;
  /** What the account calls it ("production", "n8n"); keys made before labels have none. */
  label?: string;
}

/** A key as listed to its account: the record plus when it was last admitted (see ApiKeyLastUsed). */
export interface ApiKeyListing extends ApiKeyRecord {
  lastUsedAt?: number;
}

/** What one account may hold (ACCOUNT_MAX_API_KEYS, REVOKED_API_KEY_RETENTION_SECONDS, ACCOUNT_MAX_LLM_KEYS). */
export interface AccountLimits {
  /** Live (not revoked) API keys; creating one more is refused until one is revoked. */
  maxApiKeys: number;
  /**
   * How long a revoked key stays listed (as revoked) before its records are deleted. At most
   * `maxApiKeys` revoked keys are kept: revoking one more deletes the longest revoked at once.
   */
  revokedApiKeyRetentionSeconds: number;
  /** Language-model keys (LlmKeyStore). */
  maxLlmKeys: number;
}

export const DEFAULT_ACCOUNT_LIMITS: AccountLimits = { maxApiKeys: 100, revokedApiKeyRetentionSeconds: 7 * 24 * 3600, maxLlmKeys: 20 };

export function accountLimitsOf(config: AccountLimitsConfig): AccountLimits {
  return { maxApiKeys: config.ACCOUNT_MAX_API_KEYS, revokedApiKeyRetentionSeconds: config.REVOKED_API_KEY_RETENTION_SECONDS, maxLlmKeys: config.ACCOUNT_MAX_LLM_KEYS };
}

/**
 * Lua: pruneApiKeys(...) -> the account's live keys. Walks the account's key set (every key id it
 * ever listed): an id whose records are gone (a revoked key's expired) leaves the set and the
 * last-used hash; a key revoked longer than the retention ago (revoked before revocations
 * expired) is deleted; of the revoked keys left, only the `maxRevoked` most recent are kept.
 * Key names are built inside the script from their prefixes, as ApiKeyGate's are (one Redis).
 */
const PRUNE_API_KEYS_LUA = `
local function pruneApiKeys(keySet, lastUsed, byHash, byId, now, retention, maxRevoked)
  local live = 0
  local revoked = {}
  local function forget(id, hash)
    if hash then redis.call('DEL', byHash .. hash) end
    redis.call('DEL', byId .. id)
    redis.call('SREM', keySet, id)
    redis.call('HDEL', lastUsed, id)
  end
  for _, id in ipairs(redis.call('SMEMBERS', keySet)) do
    local hash = redis.call('GET', byId .. id)
    local raw = hash and redis.call('GET', byHash .. hash)
    if not raw then
      forget(id, false)
    else
      local ok, key = pcall(cjson.decode, raw)
      local revokedAt = ok and type(key) == 'table' and key.revokedAt
      if type(revokedAt) ~= 'number' then
        live = live + 1
      elseif now - revokedAt >= retention then
        forget(id, hash)
      else
        table.insert(revoked, { id = id, hash = hash, at = revokedAt })
      end
    end
  end
  if #revoked > maxRevoked then
    table.sort(revoked, function(a, b) return a.at < b.at end)
    for i = 1, #revoked - maxRevoked do forget(revoked[i].id, revoked[i].hash) end
  end
  return live
end
`;

/** KEYS: key set, last-used hash; ARGV: by-hash prefix, by-id prefix, now, retention, max revoked. */
const PRUNE_API_KEYS_SCRIPT = `${PRUNE_API_KEYS_LUA}
return pruneApiKeys(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
`;

/**
 * KEYS: key set, last-used hash, the new key's by-hash and by-id keys; ARGV: as the prune's, then
 * the most live keys, the record, the key id and its hash. 1 when created, 0 when the account
 * already holds the most live keys it may: the count and the write are one step, so keys made at
 * once on any number of gateways cannot pass the cap together.
 */
const CREATE_API_KEY_SCRIPT = `${PRUNE_API_KEYS_LUA}
local live = pruneApiKeys(KEYS[1], KEYS[2], ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
if live >= tonumber(ARGV[6]) then return 0 end
redis.call('SET', KEYS[3], ARGV[7])
redis.call('SET', KEYS[4], ARGV[9])
redis.call('SADD', KEYS[1], ARGV[8])
return 1
`;

type PruneCommand = (keySet: string, lastUsed: string, byHash: string, byId: string, now: number, retention: number, maxRevoked: number) => Promise<number>;
type CreateCommand = (...args: Array<string | number>) => Promise<number>;

const ID_MARK = '\u0000';

export class AccountError extends Error {}

/** API keys are stored and looked up only by this hash. */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** Cheap shape check before any lookup: our keys are `glk_<id>_<secret>`. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith('glk_') && value.length <= 200;
}

function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64url')}`;
}

/** Accounts, API keys (stored only as SHA-256 hashes) and webhook secrets (sealed). */
export class AccountStore {
  private readonly keys: Keyspace;
  private readonly sealer: Sealer;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    masterSecret: string,
    private readonly limits: Pick<AccountLimits, 'maxApiKeys' | 'revokedApiKeyRetentionSeconds'> = DEFAULT_ACCOUNT_LIMITS,
  ) {
    this.keys = new Keyspace(prefix);
    this.sealer = new Sealer(masterSecret, 'webhook-secret');
    if (!('gleanerPruneApiKeys' in redis)) {
      redis.defineCommand('gleanerPruneApiKeys', { lua: PRUNE_API_KEYS_SCRIPT, numberOfKeys: 2 });
      redis.defineCommand('gleanerCreateApiKey', { lua: CREATE_API_KEY_SCRIPT, numberOfKeys: 4 });
    }
  }

  /** The prune's key names and arguments for `accountId`'s keys (see PRUNE_API_KEYS_LUA). */
  private pruneArgs(accountId: string): [string, string, string, string, number, number, number] {
    const byHash = this.keys.apiKeyByHash(ID_MARK).split(ID_MARK)[0];
    const byId = this.keys.apiKeyById(ID_MARK).split(ID_MARK)[0];
    const { maxApiKeys, revokedApiKeyRetentionSeconds } = this.limits;
    return [this.keys.accountApiKeys(accountId), this.keys.apiKeysLastUsed(accountId), byHash, byId, unixNow(), revokedApiKeyRetentionSeconds, maxApiKeys];
  }

  /** Removes the account's revoked keys past their retention (or over the count kept); its live keys. */
  private pruneApiKeys(accountId: string): Promise<number> {
    const prune = (this.redis as unknown as { gleanerPruneApiKeys: PruneCommand }).gleanerPruneApiKeys;
    return prune.call(this.redis, ...this.pruneArgs(accountId));
  }

  /** Idempotent by name. */
  async createAccount(name: string): Promise<Account> {
    if (!/^[A-Za-z0-9_.@-]{1,64}$/.test(name)) throw new AccountError('account name must be 1-64 letters, digits or _.@-');
    const existing = await this.getAccountByName(name);
    if (existing) return existing;
    const account: Account = { id: newRequestId(), name, createdAt: unixNow() };
    const claimed = await this.redis.set(this.keys.accountByName(name), account.id, 'NX');
    if (claimed !== 'OK') return (await this.getAccountByName(name))!;
    const stored: StoredAccount = { ...account, sealedWebhookSecret: this.sealer.seal(newWebhookSecret()) };
    await this.redis.multi().set(this.keys.account(account.id), JSON.stringify(stored)).sadd(this.keys.accountIds(), account.id).exec();
    return account;
  }

  async getAccount(id: string): Promise<Account | null> {
    const stored = await this.getStored(id);
    if (!stored) return null;
    const { sealedWebhookSecret: _sealed, webhookSecret: _plain, ...account } = stored;
    return account;
  }

  private async getStored(id: string): Promise<StoredAccount | null> {
    const raw = await this.redis.get(this.keys.account(id));
    return raw ? (JSON.parse(raw) as StoredAccount) : null;
  }

  /** The account's webhook signing secret in clear, or null when the account does not exist. */
  async webhookSecret(accountId: string): Promise<string | null> {
    const stored = await this.getStored(accountId);
    if (!stored) return null;
    return stored.sealedWebhookSecret ? this.sealer.open(stored.sealedWebhookSecret) : (stored.webhookSecret ?? null);
  }

  async getAccountByName(name: string): Promise<Account | null> {
    const id = await this.redis.get(this.keys.accountByName(name));
    return id ? this.getAccount(id) : null;
  }

  private async saveAccount(account: StoredAccount): Promise<void> {
    await this.redis.set(this.keys.account(account.id), JSON.stringify(account));
  }

  async setRateLimit(accountId: string, perMinute: number): Promise<Account> {
    if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > 1_000_000) throw new AccountError('rate limit must be a whole number of requests per minute, 1 or more');
    const stored = await this.requireStored(accountId);
    stored.rateLimitPerMinute = perMinute;
    await this.saveAccount(stored);
    return (await this.getAccount(accountId))!;
  }

  async rotateWebhookSecret(accountId: string): Promise<string> {
    const { webhookSecret: _plain, ...stored } = await this.requireStored(accountId);
    const secret = newWebhookSecret();
    await this.saveAccount({ ...stored, sealedWebhookSecret: this.sealer.seal(secret) });
    return secret;
  }

  private async requireStored(accountId: string): Promise<StoredAccount> {
    const stored = await this.getStored(accountId);
    if (!stored) throw new AccountError(`no account ${accountId}`);
    return stored;
  }

  private async requireAccount(accountId: string): Promise<Account> {
    const account = await this.getAccount(accountId);
    if (!account) throw new AccountError(`no account ${accountId}`);
    return account;
  }

  /** Returns the key itself once; only its hash is stored. */
  async createApiKey(accountId: string, scopes: Scope[] = [...SCOPES], options: { label?: string } = {}): Promise<{ apiKey: string; record: ApiKeyRecord }> {
    await this.requireAccount(accountId);
    const unknown = scopes.filter((s) => !SCOPES.includes(s));
    if (unknown.length || scopes.length === 0) throw new AccountError(`scopes must be among ${SCOPES.join(', ')}`);
    const label = options.label?.trim();
    const labelIssue = label === undefined ? null : labelProblem('label', label);
    if (labelIssue) throw new AccountError(labelIssue);
    const keyId = randomBytes(8).toString('hex');
    const apiKey = `glk_${keyId}_${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = { keyId, accountId, scopes: [...new Set(scopes)], createdAt: unixNow(), preview: apiKey.slice(0, 12), ...(label ? { label } : {}) };
    const hash = hashApiKey(apiKey);
    const create = (this.redis as unknown as { gleanerCreateApiKey: CreateCommand }).gleanerCreateApiKey;
    const [keySet, lastUsed, ...pruneArgv] = this.pruneArgs(accountId);
    const created = await create.call(
      this.redis,
      keySet,
      lastUsed,
      this.keys.apiKeyByHash(hash),
      this.keys.apiKeyById(keyId),
      ...pruneArgv,
      this.limits.maxApiKeys,
      JSON.stringify(record),
      keyId,
      hash,
    );
    if (created !== 1) throw new AccountError(`an account holds at most ${this.limits.maxApiKeys} live API keys: revoke one before creating another`);
    return { apiKey, record };
  }

  /** Oldest first, each with its last use (written by ApiKeyLastUsed, to the minute). */
  async listApiKeys(accountId: string): Promise<ApiKeyListing[]> {
    await this.pruneApiKeys(accountId);
    const [ids, lastUsed] = await Promise.all([this.redis.smembers(this.keys.accountApiKeys(accountId)), this.redis.hgetall(this.keys.apiKeysLastUsed(accountId))]);
    const records: ApiKeyListing[] = [];
    for (const id of ids) {
      const hash = await this.redis.get(this.keys.apiKeyById(id));
      const raw = hash ? await this.redis.get(this.keys.apiKeyByHash(hash)) : null;
      if (!raw) continue;
      const record = JSON.parse(raw) as ApiKeyListing;
      if (lastUsed[id]) record.lastUsedAt = Number(lastUsed[id]);
      records.push(record);
    }
    return records.sort((a, b) => a.createdAt - b.createdAt || a.keyId.localeCompare(b.keyId));
  }

  /**
   * Revocation applies to the very next request (the gate has no cache). With `accountId`, a key
   * of another account is answered as unknown: an account cannot learn of, nor revoke, others' keys.
   * The revoked key stays listed for the retention, then its records expire (see AccountLimits).
   */
  async revokeApiKey(keyId: string, accountId?: string): Promise<ApiKeyRecord> {
    const hash = await this.redis.get(this.keys.apiKeyById(keyId));
    const raw = hash ? await this.redis.get(this.keys.apiKeyByHash(hash)) : null;
    if (!hash || !raw) throw new AccountError(`no API key ${keyId}`);
    const record = JSON.parse(raw) as ApiKeyRecord;
    if (accountId !== undefined && record.accountId !== accountId) throw new AccountError(`no API key ${keyId}`);
    if (record.revokedAt !== undefined) return record;
    record.revokedAt = unixNow();
    const retention = this.limits.revokedApiKeyRetentionSeconds;
    await this.redis.multi().set(this.keys.apiKeyByHash(hash), JSON.stringify(record), 'EX', retention).expire(this.keys.apiKeyById(keyId), retention).exec();
    await this.pruneApiKeys(record.accountId);
    return record;
  }
}
