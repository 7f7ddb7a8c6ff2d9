import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

/**
 * A crawl's (or batch's) working state in Redis, shared by the slices that run it one after
 * another (a slice is one job of the crawl queue; the next slice, or a worker taking over after a
 * crash, carries on from here). Every change is one Lua script over keys it is given in KEYS (all
 * built by Keyspace, so a Redis Cluster with a hash-tagged prefix keeps them in one slot):
 *
 * - the frontier is a list of entries `<url key> <depth> <attempt> <url>` (breadth first);
 * - `seen` holds the key of every URL found, so each is queued (or skipped) once;
 * - `claimed` counts the pages being fetched or already reported: a claim takes frontier entries
 *   only while `claimed < limit`, in the same script, so `limit` is never exceeded however many
 *   slices or fetches run; a page that ends without counting (a duplicate, a retry) gives its
 *   place back;
 * - `fetched` maps every URL a fetched page answered for (its own, its redirects' hops, its final
 *   URL and canonical URL) to that page's key, so that no other spelling of it is fetched again;
 * - pages being fetched sit in `inflight` until they settle; those of a slice that died are put
 *   back at the front of the frontier by the next slice (requeueInFlight);
 * - results are appended to `pages`, a list of JSON entries read by the status endpoint by index
 *   (its cursor); their total size is counted against the crawl's byte cap.
 */

/** A discovered URL offered to the frontier. */
export interface CrawlCandidate {
  /** `urlKey` of its normalised form. */
  key: string;
  /** The URL to fetch. */
  url: string;
  depth: number;
  /** Why it is not crawled (counted under `skip:<reason>`), or undefined to queue it. */
  skip?: string;
  /** For a skip worth listing (robots.txt refusals): the entry appended to the results. */
  listed?: string;
}

/** A frontier entry as claimed. */
export interface ClaimedPage {
  key: string;
  url: string;
  depth: number;
  /** 0 for the first try; retries of 429s and server errors count up. */
  attempt: number;
  /** The entry as stored (to settle or requeue it). */
  raw: string;
}

export interface ClaimResult {
  pages: ClaimedPage[];
  /** Entries left in the frontier. */
  queued: number;
  /** Pages being fetched (claimed and not settled), these included. */
  inFlight: number;
  /** Pages counted against the limit: fetched or being fetched. */
  claimed: number;
  cancelled: boolean;
}

/** How a claimed page ends. */
export type PageSettlement =
  | { kind: 'completed' | 'failed'; entry: string }
  /** Not counted against the limit (a duplicate found after fetching, not a page); listed when `entry` is given. */
  | { kind: 'skipped'; reason: string; entry?: string }
  /** Put back in the frontier to be tried again later (`retryEntry`), or at its front (same attempt). */
  | { kind: 'retry'; retryEntry: string }
  | { kind: 'returned' };

export interface SettleResult {
  /** False when the page was no longer this slice's (another took over): nothing was written. */
  settled: boolean;
  /** Index of the appended entry in the results, when one was appended. */
  index?: number;
  /** The entry did not fit under the crawl's byte cap: not stored, and the crawl must end. */
  bytesCapReached?: boolean;
}

export interface CrawlCounters {
  discovered: number;
  queued: number;
  inFlight: number;
  completed: number;
  failed: number;
  skipped: number;
  skippedBy: Record<string, number>;
  /** Entries in the results list. */
  listed: number;
  storedBytes: number;
  cancelRequested: boolean;
  urlCapReached: boolean;
  /** The crawl's caps, as set when it was created. */
  maxUrls: number;
  maxBytes: number;
}

export interface CrawlLimits {
  /** Pages fetched (completed or failed) at most; undefined: no limit (a batch: its URLs). */
  limit?: number;
  /** Distinct URLs kept (seen) at most. */
  maxUrls: number;
  /** Bytes of listed results at most. */
  maxBytes: number;
}

const NO_LIMIT = 2 ** 31;

/** KEYS[1] state; ARGV[1] limit, ARGV[2] max urls, ARGV[3] max bytes, ARGV[4] ttl. Only once. */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'limit', ARGV[1], 'max_urls', ARGV[2], 'max_bytes', ARGV[3], 'claimed', 0)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1`;

/**
 * KEYS: state, seen, frontier, pages. ARGV[1] ttl, then per candidate: key, frontier entry
 * (`<depth> <attempt> <url>`), skip reason or '', listed entry or ''. A URL seen before is
 * ignored; past `max_urls` distinct URLs, new ones are dropped and counted as `url_cap`.
 */
const DISCOVER = `
local st = redis.call('HMGET', KEYS[1], 'max_urls')
if not st[1] then return -1 end
local maxUrls = tonumber(st[1])
local seen = redis.call('SCARD', KEYS[2])
local queued = 0
for i = 2, #ARGV, 4 do
  local key, entry, skip, listed = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if redis.call('SISMEMBER', KEYS[2], key) == 0 then
    if seen >= maxUrls then
      redis.call('HINCRBY', KEYS[1], 'skip:url_cap', 1)
      redis.call('HINCRBY', KEYS[1], 'skipped', 1)
      redis.call('HSET', KEYS[1], 'url_cap_reached', 1)
    else
      redis.call('SADD', KEYS[2], key)
      seen = seen + 1
      redis.call('HINCRBY', KEYS[1], 'discovered', 1)
      if skip == '' then
        redis.call('RPUSH', KEYS[3], key .. ' ' .. entry)
        queued = queued + 1
      else
        redis.call('HINCRBY', KEYS[1], 'skip:' .. skip, 1)
        redis.call('HINCRBY', KEYS[1], 'skipped', 1)
        if listed ~= '' then
          redis.call('RPUSH', KEYS[4], listed)
          redis.call('HINCRBY', KEYS[1], 'stored_bytes', #listed)
        end
      end
    end
  end
end
local ttl = tonumber(ARGV[1])
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('EXPIRE', KEYS[4], ttl)
return queued`;

/**
 * KEYS: state, frontier, inflight, fetched. ARGV[1] most pages to claim, ARGV[2] ttl. Takes
 * entries while fewer than `limit` pages are claimed; an entry whose URL a fetched page already
 * answered for is skipped as a duplicate. Returns {entries, queued, inflight, claimed, cancelled}.
 */
const CLAIM = `
local st = redis.call('HMGET', KEYS[1], 'limit', 'claimed', 'cancel')
if not st[1] then return {{}, 0, 0, 0, 1} end
local limit = tonumber(st[1])
local claimed = tonumber(st[2] or '0')
local cancelled = st[3] == '1'
local out = {}
if not cancelled then
  while #out < tonumber(ARGV[1]) and claimed < limit do
    local e = redis.call('LPOP', KEYS[2])
    if not e then break end
    local key = string.sub(e, 1, 16)
    local owner = redis.call('HGET', KEYS[4], key)
    if owner and owner ~= key then
      redis.call('HINCRBY', KEYS[1], 'skip:duplicate', 1)
      redis.call('HINCRBY', KEYS[1], 'skipped', 1)
    else
      redis.call('HSET', KEYS[4], key, key)
      redis.call('HSET', KEYS[3], key, e)
      claimed = claimed + 1
      out[#out + 1] = e
    end
  end
  redis.call('HSET', KEYS[1], 'claimed', claimed)
  local ttl = tonumber(ARGV[2])
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('EXPIRE', KEYS[4], ttl)
end
return {out, redis.call('LLEN', KEYS[2]), redis.call('HLEN', KEYS[3]), claimed, cancelled and 1 or 0}`;

/**
 * KEYS: fetched, seen. ARGV[1] the URL key a page answers for (a redirect hop, its final or
 * canonical URL), ARGV[2] the page's own key. '' when the URL is now the page's (or was), else the
 * key of the page that fetched it first.
 */
const CLAIM_ALIAS = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner and owner ~= ARGV[2] then return owner end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return ''`;

/**
 * KEYS: state, inflight, pages, frontier. ARGV[1] page key, ARGV[2] kind, ARGV[3] entry or '',
 * ARGV[4] skip reason or '', ARGV[5] retry entry or ''. Returns {settled, index, bytes cap reached}.
 */
const SETTLE = `
local entry = redis.call('HGET', KEYS[2], ARGV[1])
if not entry then return {0, -1, 0} end
redis.call('HDEL', KEYS[2], ARGV[1])
local kind = ARGV[2]
local index = -1
local capped = 0
local function list(item)
  local st = redis.call('HMGET', KEYS[1], 'stored_bytes', 'max_bytes')
  if tonumber(st[1] or '0') + #item > tonumber(st[2]) then
    redis.call('HSET', KEYS[1], 'bytes_cap_reached', 1)
    capped = 1
    return
  end
  index = redis.call('RPUSH', KEYS[3], item) - 1
  -- The results list's first entry: it lives as long as the crawl's state.
  if index == 0 then redis.call('PEXPIRE', KEYS[3], math.max(1, redis.call('PTTL', KEYS[1]))) end
  redis.call('HINCRBY', KEYS[1], 'stored_bytes', #item)
end
if kind == 'completed' or kind == 'failed' then
  list(ARGV[3])
  if capped == 1 then
    redis.call('HINCRBY', KEYS[1], 'claimed', -1)
  else
    redis.call('HINCRBY', KEYS[1], kind, 1)
  end
else
  redis.call('HINCRBY', KEYS[1], 'claimed', -1)
  if kind == 'skipped' then
    redis.call('HINCRBY', KEYS[1], 'skip:' .. ARGV[4], 1)
    redis.call('HINCRBY', KEYS[1], 'skipped', 1)
    if ARGV[3] ~= '' then list(ARGV[3]) end
  elseif kind == 'retry' then
    redis.call('RPUSH', KEYS[4], ARGV[5])
  elseif kind == 'returned' then
    redis.call('LPUSH', KEYS[4], entry)
  end
end
return {1, index, capped}`;

/** KEYS: state, inflight, frontier. The entries of a slice that died go back to the front. */
const REQUEUE_IN_FLIGHT = `
local entries = redis.call('HVALS', KEYS[2])
for i = #entries, 1, -1 do redis.call('LPUSH', KEYS[3], entries[i]) end
if #entries > 0 then
  redis.call('HINCRBY', KEYS[1], 'claimed', -#entries)
  redis.call('DEL', KEYS[2])
end
return #entries`;

/** KEYS[1] lease; ARGV[1] token, ARGV[2] ttl ms. Takes the lease, or renews it when it is the token's. */
const TAKE_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** KEYS[1] lease; ARGV[1] token. */
const DROP_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/** KEYS[1] state; ARGV[1] slice number. 1 when it is the crawl's latest slice (now recorded as such), 0 when a later one ran. */
const ENTER_SLICE = `
local current = tonumber(redis.call('HGET', KEYS[1], 'slice') or '0')
if tonumber(ARGV[1]) < current then return 0 end
redis.call('HSET', KEYS[1], 'slice', ARGV[1])
return 1`;

/** KEYS[1] state. Only for a crawl whose state exists. */
const CANCEL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'cancel', 1)
return 1`;

/**
 * KEYS: state, pages, then the working keys (seen, frontier, inflight, fetched, hosts, lease).
 * The working keys go at once (they are what makes a crawl large); the counters and the results
 * stay ARGV[1] seconds.
 */
const FINISH = `
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return 1`;

/** ARGV[1] ttl: every key of the crawl that exists lives that long from now. */
const TOUCH = `
for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
return 1`;

/**
 * KEYS[1] the account's running crawls; ARGV[1] id, ARGV[2] most at once, ARGV[3] now (ms),
 * ARGV[4] the longest a crawl can run (ms): older entries are ended crawls whose release was lost.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1`;

type Script = (...args: Array<string | number>) => Promise<unknown>;

const SCRIPTS = {
  gleanerCrawlCreate: { lua: CREATE, numberOfKeys: 1 },
  gleanerCrawlDiscover: { lua: DISCOVER, numberOfKeys: 4 },
  gleanerCrawlClaim: { lua: CLAIM, numberOfKeys: 4 },
  gleanerCrawlClaimAlias: { lua: CLAIM_ALIAS, numberOfKeys: 2 },
  gleanerCrawlSettle: { lua: SETTLE, numberOfKeys: 4 },
  gleanerCrawlRequeue: { lua: REQUEUE_IN_FLIGHT, numberOfKeys: 3 },
  gleanerCrawlTakeLease: { lua: TAKE_LEASE, numberOfKeys: 1 },
  gleanerCrawlDropLease: { lua: DROP_LEASE, numberOfKeys: 1 },
  gleanerCrawlCancel: { lua: CANCEL, numberOfKeys: 1 },
  gleanerCrawlEnterSlice: { lua: ENTER_SLICE, numberOfKeys: 1 },
  gleanerCrawlFinish: { lua: FINISH, numberOfKeys: 8 },
  gleanerCrawlTouch: { lua: TOUCH, numberOfKeys: 8 },
  gleanerCrawlAdmit: { lua: ADMIT, numberOfKeys: 1 },
} as const;

/** `<key> <depth> <attempt> <url>` → its parts. */
export function parseFrontierEntry(raw: string): ClaimedPage {
  const [key, depth, attempt] = raw.split(' ', 3);
  const url = raw.slice(key.length + depth.length + attempt.length + 3);
  return { key, url, depth: Number(depth), attempt: Number(attempt), raw };
}

/** The frontier entry of a page, as DISCOVER and retries store it. */
export function frontierEntry(key: string, depth: number, attempt: number, url: string): string {
  return `${key} ${depth} ${attempt} ${url}`;
}

export class CrawlState {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
    for (const [name, script] of Object.entries(SCRIPTS)) if (!(name in redis)) redis.defineCommand(name, script);
  }

  private script(name: keyof typeof SCRIPTS): Script {
    const command = (this.redis as unknown as Record<string, Script>)[name];
    return (...args) => command.call(this.redis, ...args);
  }

  /** Every key of the crawl, state first and results second (FINISH and TOUCH rely on it). */
  private allKeys(id: string): string[] {
    const k = this.keys;
    return [k.crawl(id), k.crawlPages(id), k.crawlSeen(id), k.crawlFrontier(id), k.crawlInFlight(id), k.crawlFetched(id), k.crawlHosts(id), k.crawlRunner(id)];
  }

  /** Starts the state of a new crawl; false when it already exists. */
  async create(id: string, limits: CrawlLimits, ttlSeconds: number): Promise<boolean> {
    return (await this.script('gleanerCrawlCreate')(this.keys.crawl(id), limits.limit ?? NO_LIMIT, limits.maxUrls, limits.maxBytes, ttlSeconds)) === 1;
  }

  /** Offers discovered URLs; returns how many were queued (-1: the crawl's state is gone). */
  async discover(id: string, candidates: CrawlCandidate[], ttlSeconds: number): Promise<number> {
    if (candidates.length === 0) return 0;
    const args = candidates.flatMap((c) => [c.key, `${c.depth} 0 ${c.url}`, c.skip ?? '', c.listed ?? '']);
    const k = this.keys;
    return Number(await this.script('gleanerCrawlDiscover')(k.crawl(id), k.crawlSeen(id), k.crawlFrontier(id), k.crawlPages(id), ttlSeconds, ...args));
  }

  async claim(id: string, max: number, ttlSeconds: number): Promise<ClaimResult> {
    const k = this.keys;
    const [entries, queued, inFlight, claimed, cancelled] = (await this.script('gleanerCrawlClaim')(k.crawl(id), k.crawlFrontier(id), k.crawlInFlight(id), k.crawlFetched(id), max, ttlSeconds)) as [string[], number, number, number, number];
    return { pages: entries.map(parseFrontierEntry), queued, inFlight, claimed, cancelled: cancelled === 1 };
  }

  /** Claims `aliasKey` for the page `ownerKey`; null when it is the page's, else the key of the page that has it. */
  async claimAlias(id: string, aliasKey: string, ownerKey: string): Promise<string | null> {
    const owner = String(await this.script('gleanerCrawlClaimAlias')(this.keys.crawlFetched(id), this.keys.crawlSeen(id), aliasKey, ownerKey));
    return owner === '' ? null : owner;
  }

  async settle(id: string, page: Pick<ClaimedPage, 'key'>, how: PageSettlement): Promise<SettleResult> {
    const k = this.keys;
    const entry = how.kind === 'completed' || how.kind === 'failed' ? how.entry : how.kind === 'skipped' ? (how.entry ?? '') : '';
    const reason = how.kind === 'skipped' ? how.reason : '';
    const retry = how.kind === 'retry' ? how.retryEntry : '';
    const [settled, index, capped] = (await this.script('gleanerCrawlSettle')(k.crawl(id), k.crawlInFlight(id), k.crawlPages(id), k.crawlFrontier(id), page.key, how.kind, entry, reason, retry)) as [number, number, number];
    return { settled: settled === 1, ...(index >= 0 ? { index } : {}), ...(capped === 1 ? { bytesCapReached: true } : {}) };
  }

  /** Puts back the pages of a slice that died mid-fetch; how many. */
  async requeueInFlight(id: string): Promise<number> {
    const k = this.keys;
    return Number(await this.script('gleanerCrawlRequeue')(k.crawl(id), k.crawlInFlight(id), k.crawlFrontier(id)));
  }

  /** Takes (or renews) the lease of the slice running the crawl; false while another slice holds it. */
  async takeLease(id: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.script('gleanerCrawlTakeLease')(this.keys.crawlRunner(id), token, ttlMs)) === 1;
  }

  async dropLease(id: string, token: string): Promise<void> {
    await this.script('gleanerCrawlDropLease')(this.keys.crawlRunner(id), token);
  }

  /** Whether a slice holds the crawl's lease now. */
  async leaseHeld(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.crawlRunner(id))) === 1;
  }

  /** Whether slice `n` may run (no later slice of the crawl has); records it as the latest. */
  async enterSlice(id: string, n: number): Promise<boolean> {
    return (await this.script('gleanerCrawlEnterSlice')(this.keys.crawl(id), n)) === 1;
  }

  /** Notes the runner keeps between slices (whether seeding is done, what webhooks delivered...). */
  async notes(id: string, ...names: string[]): Promise<Array<string | null>> {
    return this.redis.hmget(this.keys.crawl(id), ...names.map((n) => `note:${n}`));
  }

  async setNotes(id: string, notes: Record<string, string | number>): Promise<void> {
    await this.redis.hset(this.keys.crawl(id), Object.fromEntries(Object.entries(notes).map(([n, v]) => [`note:${n}`, v])));
  }

  /** Asks the running slice to stop; false when the crawl has no state (never existed, or long ended). */
  async requestCancel(id: string): Promise<boolean> {
    return (await this.script('gleanerCrawlCancel')(this.keys.crawl(id))) === 1;
  }

  async cancelRequested(id: string): Promise<boolean> {
    return (await this.redis.hget(this.keys.crawl(id), 'cancel')) === '1';
  }

  async counters(id: string): Promise<CrawlCounters | null> {
    const k = this.keys;
    const replies = await this.redis.multi().hgetall(k.crawl(id)).llen(k.crawlFrontier(id)).hlen(k.crawlInFlight(id)).llen(k.crawlPages(id)).exec();
    const [state, queued, inFlight, listed] = (replies ?? []).map(([err, value]) => {
      if (err) throw err;
      return value;
    }) as [Record<string, string>, number, number, number];
    if (!state || Object.keys(state).length === 0) return null;
    const n = (field: string) => Number(state[field] ?? 0);
    const skippedBy: Record<string, number> = {};
    for (const [field, value] of Object.entries(state)) if (field.startsWith('skip:')) skippedBy[field.slice(5)] = Number(value);
    return {
      discovered: n('discovered'),
      queued,
      inFlight,
      completed: n('completed'),
      failed: n('failed'),
      skipped: n('skipped'),
      skippedBy,
      listed,
      storedBytes: n('stored_bytes'),
      cancelRequested: state.cancel === '1',
      urlCapReached: state.url_cap_reached === '1',
      maxUrls: n('max_urls'),
      maxBytes: n('max_bytes'),
    };
  }

  /**
   * Listed results from index `from`: at most `maxEntries`, and no more than `maxBytes` of them
   * (but always one, however large, so that a reader moves on). `total`: entries listed so far.
   */
  async entries(id: string, from: number, maxEntries: number, maxBytes: number): Promise<{ entries: string[]; total: number }> {
    const key = this.keys.crawlPages(id);
    const [[e1, raw], [e2, total]] = (await this.redis.multi().lrange(key, from, from + maxEntries - 1).llen(key).exec()) as [[Error | null, string[]], [Error | null, number]];
    if (e1 || e2) throw e1 ?? e2;
    const entries: string[] = [];
    let bytes = 0;
    for (const entry of raw) {
      if (entries.length > 0 && bytes + entry.length > maxBytes) break;
      entries.push(entry);
      bytes += entry.length;
    }
    return { entries, total };
  }

  /** Entries listed so far. */
  async listedCount(id: string): Promise<number> {
    return this.redis.llen(this.keys.crawlPages(id));
  }

  /** What the crawl learnt per host (robots.txt, delays), as its slices saved it. */
  async hosts(id: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.crawlHosts(id));
  }

  async saveHosts(id: string, hosts: Record<string, string>, ttlSeconds: number): Promise<void> {
    if (Object.keys(hosts).length === 0) return;
    const key = this.keys.crawlHosts(id);
    await this.redis.multi().hset(key, hosts).expire(key, ttlSeconds).exec();
  }

  /** Keeps every key of a running crawl alive `ttlSeconds` more. */
  async touch(id: string, ttlSeconds: number): Promise<void> {
    await this.script('gleanerCrawlTouch')(...this.allKeys(id), ttlSeconds);
  }

  /** The crawl ended: its working keys go, its counters and results stay `ttlSeconds`. */
  async finish(id: string, ttlSeconds: number): Promise<void> {
    await this.script('gleanerCrawlFinish')(...this.allKeys(id), ttlSeconds);
  }

  /** Removes the whole state of a crawl that was never started (its submit lost an Idempotency-Key race, or was not queued). */
  async discard(id: string): Promise<void> {
    await this.redis.del(...this.allKeys(id));
  }

  /** Admits a new crawl of the account while it runs fewer than `max`; false otherwise. */
  async admit(accountId: string, id: string, max: number, maxAgeMs: number): Promise<boolean> {
    return (await this.script('gleanerCrawlAdmit')(this.keys.activeCrawls(accountId), id, max, Date.now(), maxAgeMs)) === 1;
  }

  /** The crawl ended: it no longer counts against its account's running crawls. */
  async release(accountId: string, id: string): Promise<void> {
    await this.redis.zrem(this.keys.activeCrawls(accountId), id);
  }
}
