import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { requestIdTime } from '@gleaner/platform';
import { incrementWithExpiry } from './counter-scripts.js';
import { Keyspace } from './keyspace.js';
import type { RenderedRecords } from './rendered-records.js';
import { unixNow } from './time.js';

export type Family = 'scrape' | 'scrape-v1' | 'parse' | 'crawl' | 'batch' | 'map';
/** Every family, in the order usage lists them. */
export const REQUEST_FAMILIES: readonly Family[] = ['scrape', 'scrape-v1', 'parse', 'crawl', 'batch', 'map'];
/** `cancelled`: crawls and batches only (DELETE /web-scrapper/crawl/{id}). */
export type RecordStatus = 'received' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface RecordError {
  /** The family's code, e.g. "E008", "400-001", or an HTTP status for v1 ("404"). */
  code: string;
  message: string;
  /** Stack or cause chain; shown only in development. */
  trace?: string;
  details?: string[];
}

export interface WebhookDeliveryState {
  url: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError?: string;
  deliveredAt?: number;
}

/** What a language-model run spent, and whether the page was cut to fit the model's input budget. */
export interface LlmUsage {
  inputTokens: number;
  outputTokens: number;
  /** Set (true) only when the page content was trimmed; shown to callers as `llm_input_truncated`. */
  inputTruncated?: true;
}

/**
 * The durable record of one API request: the only source status endpoints read (BullMQ's job
 * hashes are not a result store). Written by the gateway at submit, then by the worker.
 */
export interface RequestRecord<Input = Record<string, unknown>, Result = Record<string, unknown>> {
  id: string;
  family: Family;
  accountId: string;
  status: RecordStatus;
  createdAt: number;
  updatedAt: number;
  completedAt?: number;
  /** When the outcome was recorded, in ms: with the id's own time, the request's duration. */
  completedAtMs?: number;
  input: Input;
  result?: Result;
  error?: RecordError;
  progress?: { pagesDone: number; pagesTotal: number };
  /** Parse jobs: the document kind found in the bytes, recorded as soon as it is known (so failures show it too). */
  detectedType?: string;
  webhook?: WebhookDeliveryState;
  /**
   * Deliveries to the account's webhook subscriptions, by subscription id. Like `webhook`, a
   * `delivered` entry stops a delivery job that runs again from sending a second time.
   */
  subscriptionDeliveries?: Record<string, WebhookDeliveryState>;
  /** LLM runs only, failed ones included: tokens spent before the failure still count. */
  usage?: LlmUsage;
  /**
   * The SHA-256 (hex) of the Idempotency-Key that started the request, when one did: its claim
   * (IdempotencyKeys) is given the record's expiry whenever the record's changes.
   */
  idempotencyKeyHash?: string;
}

/**
 * How long a record lives (SPEC "Limits"): scrapes 15 h after completion, v1 24 h and parse jobs
 * 7 days after creation. Unfinished scrapes are kept as long as a parse job so none is lost.
 */
export const RECORD_LIFETIME_SECONDS: Record<Family, { fromCreation: number; afterCompletion?: number }> = {
  scrape: { fromCreation: 7 * 24 * 3600, afterCompletion: 15 * 3600 },
  'scrape-v1': { fromCreation: 24 * 3600 },
  parse: { fromCreation: 7 * 24 * 3600 },
  // A crawl runs for hours at most (CRAWL_MAX_DURATION_MS); its pages are kept a day after it ends.
  crawl: { fromCreation: 7 * 24 * 3600, afterCompletion: 24 * 3600 },
  batch: { fromCreation: 7 * 24 * 3600, afterCompletion: 24 * 3600 },
  map: { fromCreation: 24 * 3600, afterCompletion: 24 * 3600 },
};

function endedNow(): { completedAt: number; completedAtMs: number } {
  const ms = Date.now();
  return { completedAt: Math.floor(ms / 1000), completedAtMs: ms };
}

/** From acceptance (the id's own millisecond) to the recorded outcome; undefined until it ends. */
export function recordDurationMs(record: Pick<RequestRecord, 'id' | 'createdAt' | 'completedAtMs'>): number | undefined {
  if (record.completedAtMs === undefined) return undefined;
  return Math.max(0, record.completedAtMs - (requestIdTime(record.id) ?? record.createdAt * 1000));
}

export function hasEnded(status: RecordStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A worker reporting on its job says it is at work, even before its `processing` mark is sent. */
function startedStatus(status: RecordStatus): RecordStatus {
  return status === 'received' ? 'processing' : status;
}

/** What a submit knows of its record: the rest (status, times) starts here. */
export type NewRequestRecord<I = Record<string, unknown>, R = Record<string, unknown>> = Omit<RequestRecord<I, R>, 'createdAt' | 'updatedAt' | 'status'> & { status?: RecordStatus };

export function initialRecord<I, R>(record: NewRequestRecord<I, R>): RequestRecord<I, R> {
  const now = unixNow();
  return { status: 'received', createdAt: now, updatedAt: now, ...record } as RequestRecord<I, R>;
}

export type RecordLookup<I, R> =
  | { found: true; record: RequestRecord<I, R> }
  | { found: false; reason: 'expired' | 'unknown' };

/**
 * KEYS[1] record, KEYS[2] (optional) the Idempotency-Key claim that started it; ARGV[1] SHA-1 of
 * the value the writer read, ARGV[2] new value, ARGV[3] seconds to live from now (the claim's
 * too: it lives exactly as long as its record), or 0 to keep the current expiry; ARGV[4] a channel
 * to publish ARGV[5] on once written, or '' (a record that ends is announced by the very script
 * that ends it, so no listener hears of an end that did not happen, nor misses one that did while
 * it was subscribed). 1 when written, 0 when the record changed.
 */
const RECORD_CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or redis.sha1hex(current) ~= ARGV[1] then return 0 end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  if KEYS[2] then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
else
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
return 1
`;
/** The number of keys first (1, or 2 with a claim), then the keys, then ARGV. */
type RecordCasCommand = (...keysThenArgs: Array<string | number>) => Promise<number>;

/**
 * Records up to this size travel whole in their end notice (see RecordEndings), so the waiting
 * gateway answers without reading them back; larger ones are announced by id and read. Every
 * gateway receives every notice, so big results are not copied to each.
 */
export const ENDED_NOTICE_MAX_CHARS = 65_536;

/** The first line of a record's end notice, which names it: `family id`. */
export function endedNoticeHead(family: Family, id: string): string {
  return `${family} ${id}`;
}

/** The end notice of a record: its head, then on the next line the stored record when small. */
export function endedNotice(family: Family, id: string, stored: string): string {
  const head = endedNoticeHead(family, id);
  return stored.length <= ENDED_NOTICE_MAX_CHARS ? `${head}\n${stored}` : head;
}

/** What `lookup` says of `record` (null: nothing stored under the id). */
function lookupIn<I, R>(family: Family, id: string, accountId: string, record: RequestRecord<I, R> | null): RecordLookup<I, R> {
  if (record && record.accountId === accountId) return { found: true, record };
  if (record) return { found: false, reason: 'unknown' };
  const createdMs = requestIdTime(id);
  const lifetime = RECORD_LIFETIME_SECONDS[family];
  const shortest = Math.min(lifetime.fromCreation, lifetime.afterCompletion ?? Infinity);
  if (createdMs !== null && createdMs <= Date.now() && Date.now() - createdMs > shortest * 1000) {
    return { found: false, reason: 'expired' };
  }
  return { found: false, reason: 'unknown' };
}

export interface UpdateOptions {
  /**
   * Whether a write that ends the record announces it (default). A writer with more to store
   * before a waiting caller may answer (the scrape's result cache) announces it itself, after.
   */
  announce?: boolean;
}

/**
 * Records this store last read or wrote, small ones only, as stored: an update starts from the
 * value it knows instead of reading it again, and the compare-and-set tells whether it still is
 * the stored one (if not, the update reads it and tries again). A worker's writes to the record of
 * its job (processing, progress, completed) then cost one round trip each instead of two.
 */
const KNOWN_RECORDS_MAX = 1_000;
const KNOWN_RECORD_MAX_CHARS = 16_384;

export class RequestRecordStore {
  private readonly keys: Keyspace;
  private readonly known = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
    // No numberOfKeys: each call says how many keys it passes (the claim is there or not).
    if (!('gleanerRecordCas' in redis)) redis.defineCommand('gleanerRecordCas', { lua: RECORD_CAS_SCRIPT });
  }

  async create<I, R>(record: NewRequestRecord<I, R>): Promise<RequestRecord<I, R>> {
    const full = initialRecord(record);
    const ttl = RECORD_LIFETIME_SECONDS[record.family].fromCreation;
    // Not remembered: the gateway creates records and a worker, elsewhere, updates them.
    const key = this.keys.record(record.family, record.id);
    const ok = await this.redis.set(key, JSON.stringify(full), 'EX', ttl, 'NX');
    if (ok === 'OK') return full;
    // ioredis sends again, once reconnected, a command whose reply the closed connection lost (a
    // master killed in a Sentinel failover after it ran the SET and passed it to the replica now
    // master): the record found is then this very write, not another request's.
    const found = await this.redis.get(key);
    const existing = found === null ? null : (JSON.parse(found) as RequestRecord);
    if (existing?.accountId === full.accountId && existing.createdAt === full.createdAt) return full;
    throw new Error(`request record ${record.id} already exists`);
  }

  /**
   * `get`, for a caller about to update the record: the value read is kept, so that update
   * (`markProcessing` after this, say) writes at once instead of reading it again.
   */
  async readForUpdate<I = Record<string, unknown>, R = Record<string, unknown>>(family: Family, id: string): Promise<RequestRecord<I, R> | null> {
    const key = this.keys.record(family, id);
    const raw = await this.redis.get(key);
    if (raw === null) {
      this.known.delete(key);
      return null;
    }
    this.remember(key, raw);
    return JSON.parse(raw) as RequestRecord<I, R>;
  }

  async get<I = Record<string, unknown>, R = Record<string, unknown>>(family: Family, id: string): Promise<RequestRecord<I, R> | null> {
    const raw = await this.redis.get(this.keys.record(family, id));
    return raw ? (JSON.parse(raw) as RequestRecord<I, R>) : null;
  }

  /**
   * The record if it exists and belongs to `accountId`. Otherwise tells "expired" (the id's
   * UUIDv7 time is older than the family's lifetime) from "never existed, or someone else's".
   */
  async lookup<I = Record<string, unknown>, R = Record<string, unknown>>(family: Family, id: string, accountId: string): Promise<RecordLookup<I, R>> {
    return lookupIn(family, id, accountId, await this.get<I, R>(family, id));
  }

  /**
   * `lookup` answered as the JSON body `render` makes of the record. A body rendered before from
   * the very same stored record comes from `rendered` without parsing or serialising anything.
   */
  async lookupRendered<I = Record<string, unknown>, R = Record<string, unknown>>(
    family: Family,
    id: string,
    accountId: string,
    rendered: RenderedRecords,
    render: (record: RequestRecord<I, R>) => unknown,
  ): Promise<{ found: true; json: string } | { found: false; reason: 'expired' | 'unknown' }> {
    const raw = await this.redis.get(this.keys.record(family, id));
    const hit = raw === null ? undefined : rendered.get(id, raw);
    if (hit) return hit.accountId === accountId ? { found: true, json: hit.json } : { found: false, reason: 'unknown' };
    const record = raw === null ? null : (JSON.parse(raw) as RequestRecord<I, R>);
    const lookup = lookupIn<I, R>(family, id, accountId, record);
    if (!lookup.found) return lookup;
    const json = JSON.stringify(render(lookup.record));
    rendered.set(id, raw!, accountId, json);
    return { found: true, json };
  }

  /**
   * Read-modify-write with compare-and-set: the new value is written only if the record is still
   * the one read (same SHA-1), else it is read again. Unlike WATCH/MULTI this is safe on a client
   * shared by concurrent jobs (EXEC or UNWATCH by one would drop another's watch), and costs two
   * round trips, or one when the store knows the record's current value (see KNOWN_RECORDS_MAX).
   * Returns the new record, or null when the record no longer exists.
   */
  async update<I = Record<string, unknown>, R = Record<string, unknown>>(
    family: Family,
    id: string,
    mutate: (record: RequestRecord<I, R>) => RequestRecord<I, R>,
    { announce = true }: UpdateOptions = {},
  ): Promise<RequestRecord<I, R> | null> {
    const key = this.keys.record(family, id);
    const lifetime = RECORD_LIFETIME_SECONDS[family];
    let raw: string | null | undefined = this.known.get(key);
    for (let attempt = 0; attempt < 10; attempt++) {
      raw ??= await this.redis.get(key);
      if (!raw) {
        this.known.delete(key);
        return null;
      }
      const current = JSON.parse(raw) as RequestRecord<I, R>;
      const wasEnded = hasEnded(current.status);
      const next = mutate(current);
      // A mutation that leaves the record as it is (see complete and fail) writes nothing.
      if (next === current) {
        this.remember(key, raw);
        return current;
      }
      next.updatedAt = unixNow();
      // The after-completion lifetime starts once, when the record ends; later writes (webhook
      // attempts, a re-run finding the outcome recorded) keep the expiry it already has.
      const ends = hasEnded(next.status) && !wasEnded;
      const ttl = lifetime.afterCompletion && ends ? lifetime.afterCompletion : 0;
      const cas = (this.redis as unknown as { gleanerRecordCas: RecordCasCommand }).gleanerRecordCas;
      const written = JSON.stringify(next);
      const [channel, notice] = ends && announce ? [this.keys.recordEndings(), endedNotice(family, id, written)] : ['', ''];
      const claim = ttl > 0 && next.idempotencyKeyHash ? [this.keys.idempotencyKey(family, next.accountId, next.idempotencyKeyHash)] : [];
      if ((await cas.call(this.redis, 1 + claim.length, key, ...claim, createHash('sha1').update(raw).digest('hex'), written, ttl, channel, notice)) === 1) {
        this.remember(key, written);
        return next;
      }
      raw = null; // changed meanwhile, or what was known is stale: read it
    }
    this.known.delete(key);
    throw new Error(`request record ${id} is being updated concurrently`);
  }

  private remember(key: string, raw: string): void {
    this.known.delete(key); // re-inserted last: the map's order is the order of use
    if (raw.length > KNOWN_RECORD_MAX_CHARS) return;
    this.known.set(key, raw);
    if (this.known.size > KNOWN_RECORDS_MAX) this.known.delete(this.known.keys().next().value!);
  }

  markProcessing(family: Family, id: string) {
    return this.update(family, id, (r) => (hasEnded(r.status) ? r : { ...r, status: 'processing' }));
  }

  /**
   * Records the outcome unless one is already recorded: the first outcome stays (the returned
   * record then has it). Two runs of one job can overlap after a Redis outage (the first one's lock
   * expired while it could not write); the second must not turn the first's delivered result into
   * a failure, nor the reverse. Found by tests/chaos.test.ts.
   */
  complete(family: Family, id: string, result: object, extra: Pick<Partial<RequestRecord>, 'usage' | 'progress'> = {}, options: UpdateOptions = {}) {
    return this.update(family, id, (r) => (hasEnded(r.status) ? r : { ...r, ...extra, status: 'completed', result: result as Record<string, unknown>, error: undefined, ...endedNow() }), options);
  }

  /** Records a cancellation (crawls and batches) unless an outcome is already recorded (see complete). */
  cancel(family: Family, id: string, result: object) {
    return this.update(family, id, (r) => (hasEnded(r.status) ? r : { ...r, status: 'cancelled', result: result as Record<string, unknown>, ...endedNow() }));
  }

  /** Announces an ended record whose write was not announced (`announce: false`): see RecordEndings. */
  async announceEnded(record: RequestRecord): Promise<void> {
    await this.redis.publish(this.keys.recordEndings(), endedNotice(record.family, record.id, JSON.stringify(record)));
  }

  /** Records the failure unless an outcome is already recorded (see complete). */
  fail(family: Family, id: string, error: RecordError, extra: Pick<Partial<RequestRecord>, 'usage'> = {}) {
    return this.update(family, id, (r) => (hasEnded(r.status) ? r : { ...r, ...extra, status: 'failed', error, ...endedNow() }));
  }

  setProgress(family: Family, id: string, pagesDone: number, pagesTotal: number) {
    return this.update(family, id, (r) => ({ ...r, status: startedStatus(r.status), progress: { pagesDone, pagesTotal } }));
  }

  setDetectedType(family: Family, id: string, detectedType: string) {
    return this.update(family, id, (r) => ({ ...r, status: startedStatus(r.status), detectedType }));
  }

  /** Counts a status read (v1 allows 3 per id); the counter lives as long as the record. */
  async countRead(family: Family, id: string): Promise<number> {
    const key = this.keys.recordReads(family, id);
    return incrementWithExpiry(this.redis, key, RECORD_LIFETIME_SECONDS[family].fromCreation);
  }

  async delete(family: Family, id: string): Promise<void> {
    const key = this.keys.record(family, id);
    this.known.delete(key);
    await this.redis.del(key);
  }
}
