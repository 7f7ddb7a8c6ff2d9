import type { Redis } from 'ioredis';
import { incrementHashFields } from './counter-scripts.js';
import { Keyspace } from './keyspace.js';
import type { Family } from './request-records.js';

export interface AccountUsage {
  credits_used: number;
  requests: Record<Family, number>;
  llm_tokens: { input: number; output: number };
}

/** Per-account counters: credits (v1 charges one per submit), requests by family, LLM tokens. */
export class UsageCounters {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
  }

  countRequest(accountId: string, family: Family, credits = 0): Promise<void> {
    return incrementHashFields(this.redis, this.keys.usage(accountId), { [`requests:${family}`]: 1, ...(credits ? { credits } : {}) });
  }

  countTokens(accountId: string, input: number, output: number): Promise<void> {
    return incrementHashFields(this.redis, this.keys.usage(accountId), { llm_input_tokens: input, llm_output_tokens: output });
  }

  async read(accountId: string): Promise<AccountUsage> {
    const h = await this.redis.hgetall(this.keys.usage(accountId));
    const n = (k: string) => Number(h[k] ?? 0);
    return {
      credits_used: n('credits'),
      requests: { scrape: n('requests:scrape'), 'scrape-v1': n('requests:scrape-v1'), parse: n('requests:parse') },
      llm_tokens: { input: n('llm_input_tokens'), output: n('llm_output_tokens') },
    };
  }
}
