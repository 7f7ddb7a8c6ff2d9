/**
 * Every Redis key the store writes, in one place. Keys are persisted: never rename one without a
 * migration. `prefix` isolates deployments (and tests) sharing a Redis.
 *
 * Slot safety under Redis Cluster comes from the prefix alone: services pass
 * `deploymentRedis(config).prefix`, which under Cluster holds a hash tag (`{gleaner}`), so every
 * key built here hashes to the same slot and any script, MULTI or pipeline may touch several of
 * them. A new key must therefore be built here, as `${this.prefix}:<name>:…`, and never by hand
 * elsewhere; it must not add a hash tag of its own (braces in an id would move it to another
 * slot), and a script must name every key it touches in KEYS.
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
  apiKeysLastUsed(accountId: string) { return `${this.prefix}:apikey-used:${accountId}`; }
  usage(accountId: string) { return `${this.prefix}:usage:${accountId}`; }
  /** `day` is the UTC date, YYYY-MM-DD. */
  usageDay(accountId: string, day: string) { return `${this.prefix}:usage-day:${accountId}:${day}`; }
  /** Sorted set of the account's requests (`family:id`, scored by creation time in ms). */
  accountRequests(accountId: string) { return `${this.prefix}:account-requests:${accountId}`; }
  rateWindow(subject: string, window: number) { return `${this.prefix}:rl:${subject}:${window}`; }
  /** A sorted set: the times of the requests the rate limit let through in the last window. */
  rateLog(subject: string) { return `${this.prefix}:rlog:${subject}`; }
  /** An Idempotency-Key of a submit (hashed): the request it started (IdempotencyKeys). */
  idempotencyKey(family: string, accountId: string, keyHash: string) { return `${this.prefix}:idem:${family}:${accountId}:${keyHash}`; }
  subscriptions(accountId: string) { return `${this.prefix}:subscriptions:${accountId}`; }
  /** Per subscription: deliveries in a row its URL answered 404 or 410. */
  subscriptionsGone(accountId: string) { return `${this.prefix}:subscriptions-gone:${accountId}`; }
  /** Held by the parser worker that sweeps stored uploads this interval (one sweep per deployment). */
  uploadSweep() { return `${this.prefix}:upload-sweep`; }
  renderedPage(requestId: string) { return `${this.prefix}:rendered-page:${requestId}`; }
  /**
   * A crawl's or batch's state (CrawlState): counters and flags (a hash), the URLs seen (a set of
   * URL keys), the frontier (a list), the pages being fetched (a hash), the URLs fetched pages
   * answered for (a hash: URL key to the page's key), the listed results (a list of JSON entries),
   * per-host politeness (a hash) and the lease of the slice running it.
   */
  crawl(id: string) { return `${this.prefix}:crawl:${id}`; }
  crawlSeen(id: string) { return `${this.prefix}:crawl-seen:${id}`; }
  crawlFrontier(id: string) { return `${this.prefix}:crawl-frontier:${id}`; }
  crawlInFlight(id: string) { return `${this.prefix}:crawl-inflight:${id}`; }
  crawlFetched(id: string) { return `${this.prefix}:crawl-fetched:${id}`; }
  crawlPages(id: string) { return `${this.prefix}:crawl-pages:${id}`; }
  crawlHosts(id: string) { return `${this.prefix}:crawl-hosts:${id}`; }
  crawlRunner(id: string) { return `${this.prefix}:crawl-runner:${id}`; }
  /** A sorted set: the account's crawls and batches still running, scored by start time (ms). */
  activeCrawls(accountId: string) { return `${this.prefix}:active-crawls:${accountId}`; }
  /** Worker runtime: the running places one account holds in a group of queues (AccountJobCap). */
  accountJobs(group: string, accountId: string) { return `${this.prefix}:account-jobs:${group}:${accountId}`; }
  /** Worker runtime: how often a job was started while it was suspected of crashing workers (CrashIsolation). */
  crashIsolationMark(queue: string, jobId: string) { return `${this.prefix}:crash-isolation:${queue}:${jobId}`; }
  /** Written before each WAIT for a replica (ReplicaAcks): its connection's writes then come after the request's. */
  replicaAckMark() { return `${this.prefix}:replica-ack-mark`; }
  /** An MCP session, for every gateway to resume (McpSessionDirectory). */
  mcpSession(id: string) { return `${this.prefix}:mcp-session:${id}`; }
  /** A pub/sub channel, not a key: request records that end are announced on it (RecordEndings). */
  recordEndings() { return `${this.prefix}:record-endings`; }
}
