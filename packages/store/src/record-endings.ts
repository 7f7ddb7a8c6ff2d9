import type { RedisClient as Redis } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';
import { endedNoticeHead, hasEnded, type Family, type RequestRecord, type RequestRecordStore } from './request-records.js';

type Waiter = (record: RequestRecord | null) => void;

export interface RecordEndWait {
  /** The record once it has ended (completed or failed), or null when `ttlMs` passed first. */
  ended: Promise<RequestRecord | null>;
  /** Stops waiting: `ended` resolves with null. */
  cancel(): void;
}

/**
 * Tells a caller waiting on a request (the gateway's 20 s window) when its record ends. The record
 * store's write that ends a record publishes it on the deployment's channel in the same script
 * (RequestRecordStore.update), so the notice leaves Redis the moment the outcome is stored, before
 * the worker even tells BullMQ the job is done, and carries the record itself when it is small:
 * the waiting gateway answers from it without reading it back. Measured against waiting on
 * BullMQ's queue events and then reading the record, this took ~1 ms off a trivial job's round
 * trip here (README, Benchmarks).
 *
 * Pub/sub keeps nothing for a subscriber that is away: after a reconnect every waiting request's
 * record is read once, and a caller whose wait times out reads its record itself (submitAndWait).
 */
export class RecordEndings {
  private readonly channel: string;
  private readonly waiters = new Map<string, Set<Waiter>>();
  private subscribedOnce = false;

  /** `subscriber`: a connection of its own (a subscribed client can do nothing else), reconnecting by itself. */
  constructor(
    private readonly subscriber: Redis,
    private readonly records: RequestRecordStore,
    prefix: string,
  ) {
    this.channel = new Keyspace(prefix).recordEndings();
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.onNotice(message);
    });
    // ioredis subscribes again by itself after a reconnect; what ended meanwhile was never heard.
    subscriber.on('ready', () => {
      if (this.subscribedOnce) this.readAllWaiting();
    });
  }

  async start(): Promise<void> {
    await this.subscriber.subscribe(this.channel);
    this.subscribedOnce = true;
  }

  /** Register before the work can end (before the job is added): a notice is never kept for later. */
  wait(family: Family, id: string, ttlMs: number): RecordEndWait {
    const key = endedNoticeHead(family, id);
    let settle!: Waiter;
    const ended = new Promise<RequestRecord | null>((resolve) => {
      const timer = setTimeout(() => settle(null), ttlMs);
      settle = (record) => {
        clearTimeout(timer);
        const set = this.waiters.get(key);
        set?.delete(settle);
        if (set?.size === 0) this.waiters.delete(key);
        resolve(record);
      };
    });
    const set = this.waiters.get(key) ?? new Set<Waiter>();
    set.add(settle);
    this.waiters.set(key, set);
    return { ended, cancel: () => settle(null) };
  }

  /** Ends every wait (with null) and closes the subscriber connection. */
  async close(): Promise<void> {
    for (const set of [...this.waiters.values()]) for (const settle of [...set]) settle(null);
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private onNotice(message: string): void {
    const newline = message.indexOf('\n');
    const key = newline < 0 ? message : message.slice(0, newline);
    const set = this.waiters.get(key);
    // Every gateway hears every notice; only the one waiting on it parses the record.
    if (!set) return;
    if (newline >= 0) {
      try {
        const record = JSON.parse(message.slice(newline + 1)) as RequestRecord;
        for (const settle of [...set]) settle(record);
        return;
      } catch {
        // Not from our script (anyone with access to Redis can publish): read the record instead.
      }
    }
    this.readEnded(key, [...set]);
  }

  private readAllWaiting(): void {
    for (const [key, set] of this.waiters) this.readEnded(key, [...set]);
  }

  /**
   * Reads the record a notice head names and settles `waiting` if it has ended; otherwise (or
   * unreadable now) they wait on.
   */
  private readEnded(head: string, waiting: Waiter[]): void {
    const [family, id] = head.split(' ') as [Family, string];
    this.records.get(family, id).then(
      (record) => {
        if (record && hasEnded(record.status)) for (const settle of waiting) settle(record);
      },
      () => undefined,
    );
  }
}
