import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';

/** What a tool handler receives from the SDK that progress needs. */
export interface ProgressChannel {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

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
  private readonly timer: NodeJS.Timeout | null;

  /**
   * `untilUpdate`: the first message waits for the first update (a submit's answer naming the
   * request id, a few milliseconds away) or else the first heartbeat, so that it carries the id.
   */
  constructor(
    private readonly channel: ProgressChannel,
    intervalMs: number,
    firstMessage: string,
    { untilUpdate = false } = {},
  ) {
    this.message = firstMessage;
    const token = channel._meta?.progressToken;
    this.timer = token === undefined ? null : setInterval(() => this.send(), intervalMs);
    this.timer?.unref();
    if (!untilUpdate) this.send();
  }

  /** Reports a new state now (and in the following heartbeats). */
  update(message: string): void {
    this.message = message;
    this.send();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
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
