import { createHash } from 'node:crypto';
import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { initialRecord, RECORD_LIFETIME_SECONDS, type Family, type NewRequestRecord, type RequestRecord } from './request-records.js';

/** What an account's Idempotency-Key stands for: the request it started and the body it came with. */
export interface IdempotencyClaim {
  requestId: string;
  /** A digest of the submitted body: the same key with another body is refused. */
  fingerprint: string;
}

/**
 * KEYS[1] the claim, KEYS[2] the new record; ARGV[1] claim, ARGV[2] record, ARGV[3] seconds to
 * live, ARGV[4] and ARGV[5] the record key's parts before and after a request id. A claim whose
 * record still exists wins and is returned; otherwise (no claim, or its record expired or was
 * removed as not accepted) the record is created and the key claimed for it, together: no
 * moment exists where a key names a request without a record, or the reverse.
 */
const CLAIM_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held then
  local ok, claim = pcall(cjson.decode, held)
  if ok and type(claim) == 'table' and type(claim.requestId) == 'string' and redis.call('EXISTS', ARGV[4] .. claim.requestId .. ARGV[5]) == 1 then return held end
end
if not redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3], 'NX') then return redis.error_reply('request record already exists') end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
return false
`;
type ClaimCommand = (claimKey: string, recordKey: string, claim: string, record: string, ttl: number, before: string, after: string) => Promise<string | null>;

/** KEYS[1] the claim; ARGV[1] a request id: the claim is deleted only while it names that request. */
const RELEASE_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if not held then return 0 end
local ok, claim = pcall(cjson.decode, held)
if ok and type(claim) == 'table' and claim.requestId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
type ReleaseCommand = (claimKey: string, requestId: string) => Promise<number>;

const ID_MARK = '\u0000';

/** Keys are kept hashed (a caller's key may be long or odd; it is not our data to keep). */
function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export type ClaimOutcome<I, R> = { created: true; record: RequestRecord<I, R> } | { created: false; claim: IdempotencyClaim };

/**
 * Idempotency-Key of submits, per account and family: a claim lives exactly as long as the record
 * of the request it started (created with it, given its expiry when the record's changes, removed
 * with a record removed as not accepted), so a retry after a lost answer finds the same request
 * and no key outlives it. Keys are stored hashed.
 * Key names are built inside the script, as ApiKeyGate's are: fine on one Redis, not on Cluster.
 */
export class IdempotencyKeys {
  private readonly keys: Keyspace;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keyspace(prefix);
    if (!('gleanerIdempotentCreate' in redis)) {
      redis.defineCommand('gleanerIdempotentCreate', { lua: CLAIM_SCRIPT, numberOfKeys: 2 });
      redis.defineCommand('gleanerIdempotentRelease', { lua: RELEASE_SCRIPT, numberOfKeys: 1 });
    }
  }

  private claimKey(family: Family, accountId: string, key: string): string {
    return this.keys.idempotencyKey(family, accountId, keyHash(key));
  }

  /** The request `key` started, if claimed (its record may have gone since: check it). */
  async find(family: Family, accountId: string, key: string): Promise<IdempotencyClaim | null> {
    const raw = await this.redis.get(this.claimKey(family, accountId, key));
    if (!raw) return null;
    try {
      const claim = JSON.parse(raw) as IdempotencyClaim;
      return typeof claim.requestId === 'string' && typeof claim.fingerprint === 'string' ? claim : null;
    } catch {
      return null;
    }
  }

  /** Creates the record and claims `key` for it, unless the key already names a live request: that one is returned. */
  async createClaimed<I, R>(record: NewRequestRecord<I, R>, key: string, fingerprint: string): Promise<ClaimOutcome<I, R>> {
    // The record names its claim, so the record's later expiries reach the claim too (see RequestRecordStore.update).
    const full = initialRecord({ ...record, idempotencyKeyHash: keyHash(key) });
    const [before, after] = this.keys.record(record.family, ID_MARK).split(ID_MARK);
    const claim: IdempotencyClaim = { requestId: record.id, fingerprint };
    const create = (this.redis as unknown as { gleanerIdempotentCreate: ClaimCommand }).gleanerIdempotentCreate;
    const held = await create.call(
      this.redis,
      this.claimKey(record.family, record.accountId, key),
      this.keys.record(record.family, record.id),
      JSON.stringify(claim),
      JSON.stringify(full),
      RECORD_LIFETIME_SECONDS[record.family].fromCreation,
      before,
      after,
    );
    const claimed = held === null ? null : (JSON.parse(held) as IdempotencyClaim);
    // A claim naming this very request is this call's own, run once already: ioredis sent the
    // script again after a reconnect, its first reply lost with the connection (RequestRecordStore.create).
    return claimed === null || claimed.requestId === record.id ? { created: true, record: full } : { created: false, claim: claimed };
  }

  /** Frees `key` if it still names `requestId` (its record was removed: the request was not accepted). */
  async release(family: Family, accountId: string, key: string, requestId: string): Promise<void> {
    const release = (this.redis as unknown as { gleanerIdempotentRelease: ReleaseCommand }).gleanerIdempotentRelease;
    await release.call(this.redis, this.claimKey(family, accountId, key), requestId);
  }
}
