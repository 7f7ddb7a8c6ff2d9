/**
 * Every Redis key the store writes, in one place. Keys are persisted: never rename one without a
 * migration. `prefix` isolates deployments (and tests) sharing a Redis.
 */
export class Keyspace {
  constructor(readonly prefix: string) {}
  record(family: string, id: string) { return `${this.prefix}:rec:${family}:${id}`; }
  recordReads(family: string, id: string) { return `${this.prefix}:rec-reads:${family}:${id}`; }
  cache(accountId: string, urlHash: string) { return `${this.prefix}:cache:${accountId}:${urlHash}`; }
  account(id: string) { return `${this.prefix}:account:${id}`; }
  accountByName(name: string) { return `${this.prefix}:account-name:${name}`; }
  accountIds() { return `${this.prefix}:accounts`; }
  apiKeyByHash(hash: string) { return `${this.prefix}:apikey:${hash}`; }
  apiKeyById(keyId: string) { return `${this.prefix}:apikey-id:${keyId}`; }
  accountApiKeys(accountId: string) { return `${this.prefix}:account-keys:${accountId}`; }
  llmKeys(accountId: string) { return `${this.prefix}:llm-keys:${accountId}`; }
  usage(accountId: string) { return `${this.prefix}:usage:${accountId}`; }
  rateWindow(subject: string, window: number) { return `${this.prefix}:rl:${subject}:${window}`; }
  subscriptions(accountId: string) { return `${this.prefix}:subscriptions:${accountId}`; }
  renderedPage(requestId: string) { return `${this.prefix}:rendered-page:${requestId}`; }
  /** A pub/sub channel, not a key: request records that end are announced on it (RecordEndings). */
  recordEndings() { return `${this.prefix}:record-endings`; }
}
