import type { RedisClient as Redis } from '@gleaner/platform';
import { newRequestId } from '@gleaner/platform';
import { DEFAULT_ACCOUNT_LIMITS } from './accounts.js';
import { hsetUnderCap } from './capped-hash.js';
import { Keyspace } from './keyspace.js';
import { labelProblem } from './labels.js';
import { Sealer } from './sealing.js';
import { unixNow } from './time.js';

export const LLM_PROVIDERS = ['anthropic', 'openai-compatible'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

/** What an account sees of its LLM keys: never the secret, only its last four characters. */
export interface LlmKeySummary {
  id: string;
  provider: LlmProvider;
  model?: string;
  baseUrl?: string;
  label?: string;
  createdAt: number;
  masked: string;
}

interface StoredLlmKey extends LlmKeySummary {
  sealedSecret: string;
}

export interface LlmKeyWithSecret extends LlmKeySummary {
  secret: string;
}

export class LlmKeyError extends Error {}

/** Providers' keys are tens of characters; this only bounds what one key may store. */
export const LLM_SECRET_MAX_CHARS = 4096;

/**
 * What is wrong with the form of an LLM key's base URL (no DNS), or null. Credentials are refused
 * (issue 24): a URL is listed back and logged, a password in it would be too; the provider's
 * secret goes in the key, which is sealed.
 */
export function llmBaseUrlProblem(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'base URL is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'base URL must be http(s)';
  if (url.username || url.password) return "base URL must not carry a user name or password (the provider's secret goes in the key)";
  return null;
}

/** A base URL as listed: a password stored before credentials were refused shows as ****. */
function listedBaseUrl(baseUrl: string | undefined): string | undefined {
  if (baseUrl === undefined) return undefined;
  try {
    const url = new URL(baseUrl);
    if (!url.password) return baseUrl;
    url.password = '****';
    return url.href;
  } catch {
    return baseUrl;
  }
}

/** Language-model keys registered per account, stored AES-256-GCM encrypted under GLEANER_SECRET. */
export class LlmKeyStore {
  private readonly keys: Keyspace;
  private readonly sealer: Sealer;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    masterSecret: string,
    private readonly maxKeys = DEFAULT_ACCOUNT_LIMITS.maxLlmKeys,
  ) {
    this.keys = new Keyspace(prefix);
    this.sealer = new Sealer(masterSecret, 'llm-keys');
  }

  async add(accountId: string, input: { provider: LlmProvider; secret: string; model?: string; baseUrl?: string; label?: string }): Promise<LlmKeySummary> {
    if (!LLM_PROVIDERS.includes(input.provider)) throw new LlmKeyError(`provider must be one of ${LLM_PROVIDERS.join(', ')}`);
    if (!input.secret || input.secret.length < 8) throw new LlmKeyError('key secret is too short');
    if (input.secret.length > LLM_SECRET_MAX_CHARS) throw new LlmKeyError(`key secret is longer than ${LLM_SECRET_MAX_CHARS} characters`);
    const baseUrlProblem = input.baseUrl === undefined ? null : llmBaseUrlProblem(input.baseUrl);
    if (baseUrlProblem) throw new LlmKeyError(baseUrlProblem);
    // Shown back in listings and the console, like an API key's label: the same rules.
    const model = input.model?.trim() || undefined;
    const label = input.label?.trim() || undefined;
    const textProblem = (model === undefined ? null : labelProblem('model', model)) ?? (label === undefined ? null : labelProblem('label', label));
    if (textProblem) throw new LlmKeyError(textProblem);
    const summary: LlmKeySummary = {
      id: `llmk_${newRequestId()}`,
      provider: input.provider,
      model,
      baseUrl: input.baseUrl,
      label,
      createdAt: unixNow(),
      masked: `••••${input.secret.slice(-4)}`,
    };
    const stored: StoredLlmKey = { ...summary, sealedSecret: this.sealer.seal(input.secret) };
    if (!(await hsetUnderCap(this.redis, this.keys.llmKeys(accountId), this.maxKeys, summary.id, JSON.stringify(stored)))) {
      throw new LlmKeyError(`an account holds at most ${this.maxKeys} language-model keys: remove one before adding another`);
    }
    return summary;
  }

  private async all(accountId: string): Promise<StoredLlmKey[]> {
    const raw = await this.redis.hvals(this.keys.llmKeys(accountId));
    // Ids embed a UUIDv7, so sorting by id orders by creation even within one second.
    return raw.map((r) => JSON.parse(r) as StoredLlmKey).sort((a, b) => a.id.localeCompare(b.id));
  }

  async list(accountId: string): Promise<LlmKeySummary[]> {
    return (await this.all(accountId)).map(({ sealedSecret: _sealed, ...summary }) => ({ ...summary, baseUrl: listedBaseUrl(summary.baseUrl) }));
  }

  async remove(accountId: string, id: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.llmKeys(accountId), id)) === 1;
  }

  /** The chosen key with its secret: `id` when given, else the most recently added; null when none. */
  async resolve(accountId: string, id?: string): Promise<LlmKeyWithSecret | null> {
    let stored: StoredLlmKey | undefined;
    if (id) {
      const raw = await this.redis.hget(this.keys.llmKeys(accountId), id);
      stored = raw ? (JSON.parse(raw) as StoredLlmKey) : undefined;
    } else {
      stored = (await this.all(accountId)).at(-1);
    }
    if (!stored) return null;
    const { sealedSecret, ...summary } = stored;
    return { ...summary, secret: this.sealer.open(sealedSecret) };
  }
}
