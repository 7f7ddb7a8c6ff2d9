import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** What a tool handler receives from the SDK that progress needs. */
export interface ProgressChannel {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/**
 * How long the first message may wait for its first update at least, whatever the heartbeat's
 * interval: a submit's answer can take a second on a busy gateway, and a first message without the
 * request id leaves a client that cancels at once nothing to resume with.
 */
const FIRST_UPDATE_WAIT_MS = 3_000;

/**
 * Progress notifications of one tool call, sent only when the client asked for them (a
 * progressToken). `progress` is the seconds elapsed, which always increases as MCP requires
 * whatever the work reports; `message` says where the work is ("page 3 of 10", "2 of 5 pages
 * done", the request id once Gleaner gave one). A heartbeat repeats the latest message every
 * `intervalMs`, so a client whose request timeout resets on progress keeps waiting while Gleaner
 * works inside its 20 s window, where there is nothing new to report.
 */
export class ProgressReporter {
  private readonly started = Date.now();
  private last = -1;
  private message: string;
  private timer: NodeJS.Timeout | null = null;
  /** Set while the first message waits for the first update (`untilUpdate`). */
  private firstWait: NodeJS.Timeout | null = null;
  private stopped = false;

  /**
   * `untilUpdate`: the first message waits for the first update (a submit's answer naming the
   * request id, a few milliseconds away) or else max(interval, FIRST_UPDATE_WAIT_MS), so that it
   * carries the id; heartbeats start after it.
   */
  constructor(
    private readonly channel: ProgressChannel,
    private readonly intervalMs: number,
    firstMessage: string,
    { untilUpdate = false } = {},
  ) {
    this.message = firstMessage;
    if (channel._meta?.progressToken === undefined) return;
    if (untilUpdate) {
      this.firstWait = setTimeout(() => this.endFirstWait(), Math.max(intervalMs, FIRST_UPDATE_WAIT_MS));
      this.firstWait.unref();
    } else this.endFirstWait();
  }

  /** Reports a new state now (and in the following heartbeats). */
  update(message: string): void {
    this.message = message;
    this.endFirstWait();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.firstWait) clearTimeout(this.firstWait);
    this.stopped = true;
  }

  /** Sends the message and, the first time, starts the heartbeat. */
  private endFirstWait(): void {
    if (this.firstWait) clearTimeout(this.firstWait);
    this.firstWait = null;
    if (!this.timer && !this.stopped && this.channel._meta?.progressToken !== undefined) {
      this.timer = setInterval(() => this.send(), this.intervalMs);
      this.timer.unref();
    }
    this.send();
  }

  private send(): void {
    const progressToken = this.channel._meta?.progressToken;
    if (progressToken === undefined) return;
    // Strictly increasing even when two reports fall in the same millisecond.
    const progress = Math.max(Math.round((Date.now() - this.started) / 100) / 10, this.last + 0.001);
    this.last = progress;
    this.channel
      .sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message: this.message } })
      // The client went away: the call's abort signal ends the work.
      .catch(() => undefined);
  }
}
