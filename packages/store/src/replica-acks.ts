import type { RedisClient as Redis, Logger } from '@gleaner/platform';
import { Keyspace } from './keyspace.js';

/**
 * Redis replicates asynchronously: a write the master acknowledged can be lost when the master
 * dies before its replicas have it, and a Sentinel or Cluster failover then promotes a replica
 * without it. The gateway therefore waits, once a request is recorded and queued and before it
 * answers, until a replica has everything written so far (WAIT), so that a request it accepted
 * outlives the master.
 *
 * WAIT counts the writes of the connection it is sent on, and blocks that connection while it
 * waits: sent on the gateway's shared connection, it would hold every other request's commands
 * behind it. So it goes on a connection of its own, after a write of its own (a mark key), which
 * Redis orders after every write already acknowledged on the other connections. Under Cluster
 * the mark shares the deployment's slot (Keyspace), so the pipeline, WAIT included, goes to the
 * master holding the requests.
 */
export class ReplicaAcks {
  private readonly mark: string;
  private lastWarned = 0;
  /** The round running now (or the last one); the next starts when it ends. */
  private running: Promise<unknown> = Promise.resolve();
  /** The round callers join now: it starts once the running one ends. */
  private next: Promise<number> | null = null;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    /** Longest wait for a replica; past it the request is answered all the same (and logged). */
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.mark = new Keyspace(prefix).replicaAckMark();
  }

  /**
   * Resolves with the number of replicas that hold the writes acknowledged before the call
   * (0: none within the timeout, or the master has no replica now). Callers share rounds: WAIT
   * blocks its connection, so one round at a time answers everyone who asked before it began,
   * and a thousand submits cost a few rounds, not a thousand timeouts behind each other.
   */
  wait(): Promise<number> {
    if (!this.next) {
      const round = this.running.then(() => {
        this.next = null;
        return this.round();
      });
      this.next = round;
      this.running = round.catch(() => undefined);
    }
    return this.next;
  }

  private async round(): Promise<number> {
    // Pipelines, with a key each: under Cluster a command without a key (ROLE, WAIT) goes to
    // whichever node, and with the mark it goes to the master holding the deployment's slot.
    const [marked, role] = (await this.redis.pipeline().incr(this.mark).role().exec()) ?? [];
    if (marked?.[0] || role?.[0]) throw marked?.[0] ?? role?.[0];
    const replicas = (role?.[1] as [string, unknown, unknown[]?])[2]?.length ?? 0;
    // A master without replicas (the one promoted while its old master is down): waiting would
    // only cost every submit the timeout.
    const acked = replicas === 0 ? 0 : Number((await this.redis.pipeline().exists(this.mark).wait(1, this.timeoutMs).exec())?.[1]?.[1] ?? 0);
    if (acked < 1 && Date.now() - this.lastWarned > 60_000) {
      this.lastWarned = Date.now();
      this.logger.warn(`no Redis replica holds the requests accepted just now (${replicas === 0 ? 'the master has no replica' : `none acknowledged within ${this.timeoutMs} ms`}): a failover now could lose them (said at most once a minute)`);
    }
    return acked;
  }

  close(): void {
    this.redis.disconnect();
  }
}
