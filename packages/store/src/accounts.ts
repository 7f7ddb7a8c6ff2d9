import { createHash, randomBytes } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
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

export const API_KEY_LABEL_MAX_CHARS = 100;

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
  ) {
    this.keys = new Keyspace(prefix);
    this.sealer = new Sealer(masterSecret, 'webhook-secret');
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
    if (label !== undefined && (label.length > API_KEY_LABEL_MAX_CHARS || /[\u0000-\u001f\u007f]/.test(label))) {
      throw new AccountError(`label must be at most ${API_KEY_LABEL_MAX_CHARS} characters, without control characters`);
    }
    const keyId = randomBytes(8).toString('hex');
    const apiKey = `glk_${keyId}_${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = { keyId, accountId, scopes: [...new Set(scopes)], createdAt: unixNow(), preview: apiKey.slice(0, 12), ...(label ? { label } : {}) };
    const hash = hashApiKey(apiKey);
    await this.redis
      .multi()
      .set(this.keys.apiKeyByHash(hash), JSON.stringify(record))
      .set(this.keys.apiKeyById(keyId), hash)
      .sadd(this.keys.accountApiKeys(accountId), keyId)
      .exec();
    return { apiKey, record };
  }

  /** Oldest first, each with its last use (written by ApiKeyLastUsed, to the minute). */
  async listApiKeys(accountId: string): Promise<ApiKeyListing[]> {
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
   */
  async revokeApiKey(keyId: string, accountId?: string): Promise<ApiKeyRecord> {
    const hash = await this.redis.get(this.keys.apiKeyById(keyId));
    const raw = hash ? await this.redis.get(this.keys.apiKeyByHash(hash)) : null;
    if (!hash || !raw) throw new AccountError(`no API key ${keyId}`);
    const record = JSON.parse(raw) as ApiKeyRecord;
    if (accountId !== undefined && record.accountId !== accountId) throw new AccountError(`no API key ${keyId}`);
    record.revokedAt ??= unixNow();
    await this.redis.set(this.keys.apiKeyByHash(hash), JSON.stringify(record));
    return record;
  }
}
