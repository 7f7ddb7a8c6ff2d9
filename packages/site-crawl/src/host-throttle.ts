/** How hard a crawl may press one host. */
export interface ThrottleSettings {
  /** Requests to one host at once (`max_concurrency`). */
  maxConcurrency: number;
  /** Smallest gap between two request starts to one host, ms (robots.txt `Crawl-delay` raises it per host). */
  minDelayMs: number;
  /** Largest gap the adaptive delay grows to, ms (a `Retry-After` asking for more is capped here). */
  maxDelayMs: number;
}

/** How one request to a host went: what the adaptive delay learns from. */
export interface RequestOutcome {
  /** From sending the request to the end of its answer, ms. */
  latencyMs: number;
  /** HTTP status of the answer; undefined when there was none (network error, timeout). */
  statusCode?: number;
  /** A 429 or 503 answer's Retry-After, ms. */
  retryAfterMs?: number;
}

interface HostState {
  delayMs: number;
  /** Robots.txt's Crawl-delay: the delay never goes below it. */
  floorMs: number;
  inFlight: number;
  /** No request starts before this time (the last start plus the delay, or a Retry-After). */
  nextStartAt: number;
  waiters: Array<() => void>;
  timer: NodeJS.Timeout | null;
}

/** The delay after a 429 or 503 without Retry-After: at least this, doubled each time. */
const BACKOFF_MIN_MS = 1_000;

/**
 * Per-host politeness for one crawl: at most `maxConcurrency` requests to a host at once, request
 * starts spaced by the host's delay, and that delay adapted in the manner of Scrapy's
 * AutoThrottle: after each answer it moves halfway towards latency ÷ maxConcurrency (so that on
 * average maxConcurrency requests are in flight), but an answer that is not a success never lowers
 * it (error pages are quick, and would otherwise speed up a crawl that is being refused). A 429 or
 * 503 doubles it (at least 1 s, at least its Retry-After, at most maxDelayMs) and holds every
 * request to the host until the Retry-After has passed.
 */
export class HostThrottle {
  private readonly hosts = new Map<string, HostState>();

  constructor(
    private readonly settings: ThrottleSettings,
    /** Delays learnt by earlier slices of the crawl, by host. */
    learnt: Record<string, number> = {},
  ) {
    for (const [host, delayMs] of Object.entries(learnt)) this.state(host).delayMs = this.clamp(delayMs, this.settings.minDelayMs);
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      s = { delayMs: this.settings.minDelayMs, floorMs: this.settings.minDelayMs, inFlight: 0, nextStartAt: 0, waiters: [], timer: null };
      this.hosts.set(host, s);
    }
    return s;
  }

  private clamp(ms: number, floor: number): number {
    return Math.min(Math.max(ms, floor), Math.max(floor, this.settings.maxDelayMs));
  }

  /** Robots.txt's Crawl-delay for `host`: the smallest gap from now on. */
  setCrawlDelay(host: string, ms: number | undefined): void {
    const s = this.state(host);
    s.floorMs = Math.max(this.settings.minDelayMs, ms ?? 0);
    s.delayMs = this.clamp(s.delayMs, s.floorMs);
  }

  delayOf(host: string): number {
    return this.state(host).delayMs;
  }

  /** Every host's current delay, to carry over to the crawl's next slice. */
  delays(): Record<string, number> {
    return Object.fromEntries([...this.hosts].map(([host, s]) => [host, s.delayMs]));
  }

  /**
   * Resolves once a request to `host` may start (a free place and the delay since the last start
   * passed), with the function that gives the place back. Rejects with the signal's reason if it
   * aborts first.
   */
  async acquire(host: string, signal?: AbortSignal): Promise<() => void> {
    const s = this.state(host);
    while (!this.mayStart(s)) {
      if (signal?.aborted) throw signal.reason;
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal!.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        s.waiters.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
        this.schedule(s);
      });
    }
    s.inFlight++;
    s.nextStartAt = Date.now() + s.delayMs;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      s.inFlight--;
      this.wake(s);
    };
  }

  private mayStart(s: HostState): boolean {
    return s.inFlight < this.settings.maxConcurrency && Date.now() >= s.nextStartAt;
  }

  /** Wakes one waiter when it may start, or arms a timer for when the delay has passed. */
  private schedule(s: HostState): void {
    if (s.timer || s.waiters.length === 0) return;
    if (s.inFlight >= this.settings.maxConcurrency) return; // a release wakes it
    const wait = s.nextStartAt - Date.now();
    if (wait <= 0) {
      this.wake(s);
      return;
    }
    s.timer = setTimeout(() => {
      s.timer = null;
      this.wake(s);
    }, wait);
  }

  private wake(s: HostState): void {
    const next = s.waiters.shift();
    if (next) next();
    // The woken one re-checks; the rest wait for their turn.
    if (s.waiters.length > 0) queueMicrotask(() => this.schedule(s));
  }

  /** Learns from one answer (see the class comment). */
  observe(host: string, outcome: RequestOutcome): void {
    const s = this.state(host);
    const refused = outcome.statusCode === 429 || outcome.statusCode === 503;
    if (refused) {
      const raised = Math.max(s.delayMs * 2, BACKOFF_MIN_MS, outcome.retryAfterMs ?? 0);
      s.delayMs = this.clamp(raised, s.floorMs);
      const holdMs = Math.min(outcome.retryAfterMs ?? s.delayMs, this.settings.maxDelayMs);
      s.nextStartAt = Math.max(s.nextStartAt, Date.now() + holdMs);
      return;
    }
    const target = outcome.latencyMs / this.settings.maxConcurrency;
    const next = Math.max(target, (s.delayMs + target) / 2);
    const success = outcome.statusCode !== undefined && outcome.statusCode >= 200 && outcome.statusCode < 300;
    if (!success && next < s.delayMs) return;
    s.delayMs = this.clamp(next, s.floorMs);
  }

  /** Drops every waiter's timer (the slice is over). */
  close(): void {
    for (const s of this.hosts.values()) if (s.timer) clearTimeout(s.timer);
  }
}
