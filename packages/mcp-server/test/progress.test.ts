import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { ProgressReporter } from '../src/progress.js';

/** A tool call's channel that records the progress messages sent on it. */
function channel() {
  const messages: string[] = [];
  return {
    messages,
    _meta: { progressToken: 'token-1' },
    sendNotification: async (n: ServerNotification) => {
      messages.push(String((n.params as { message?: string }).message));
    },
  };
}

describe('ProgressReporter', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sends the first message at once and repeats the latest on every heartbeat', () => {
    const c = channel();
    const progress = new ProgressReporter(c, 300, 'reading');
    expect(c.messages).toEqual(['reading']);
    jest.advanceTimersByTime(650);
    progress.update('page 2 of 3');
    jest.advanceTimersByTime(300);
    progress.stop();
    jest.advanceTimersByTime(3_000);
    expect(c.messages).toEqual(['reading', 'reading', 'reading', 'page 2 of 3', 'page 2 of 3']);
  });

  it('holds the first message for the first update, past short heartbeats, so that it names the request', () => {
    const c = channel();
    const progress = new ProgressReporter(c, 300, 'reading', { untilUpdate: true });
    // A busy gateway: the submit answers after 2 s, ten heartbeats' worth.
    jest.advanceTimersByTime(2_000);
    expect(c.messages).toEqual([]);
    progress.update('request 42: reading');
    jest.advanceTimersByTime(300);
    progress.stop();
    expect(c.messages).toEqual(['request 42: reading', 'request 42: reading']);
  });

  it('sends the first message without the update after 3 s (or the heartbeat interval if longer)', () => {
    const c = channel();
    const progress = new ProgressReporter(c, 300, 'reading', { untilUpdate: true });
    jest.advanceTimersByTime(2_999);
    expect(c.messages).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(c.messages).toEqual(['reading']);
    progress.stop();
    const slow = channel();
    const slowProgress = new ProgressReporter(slow, 5_000, 'reading', { untilUpdate: true });
    jest.advanceTimersByTime(4_999);
    expect(slow.messages).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(slow.messages).toEqual(['reading']);
    slowProgress.stop();
  });
});
