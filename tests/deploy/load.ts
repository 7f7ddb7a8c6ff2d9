import { randomUUID } from 'node:crypto';
import { sleep } from './host.js';
import { seconds } from './report.js';

/** What became of one scrape a client asked for. */
export interface Outcome {
  url: string;
  /** The gateway gave it a request id (200 or 202): from then on it must not be lost. */
  requestId?: string;
  /** completed / failed: its record's end; refused: never accepted; pending: still not ended at the deadline. */
  end: 'completed' | 'failed' | 'refused' | 'pending';
  submitAttempts: number;
  detail?: string;
  /** Milliseconds from the first submit attempt to its end as the client saw it. */
  tookMs?: number;
}

export interface Totals {
  asked: number;
  accepted: number;
  completed: number;
  failed: number;
  refused: number;
  /** Accepted and never ended. */
  lost: number;
}

export function totals(outcomes: Outcome[]): Totals {
  const count = (end: Outcome['end']) => outcomes.filter((o) => o.end === end).length;
  return {
    asked: outcomes.length,
    accepted: outcomes.filter((o) => o.requestId).length,
    completed: count('completed'),
    failed: count('failed'),
    refused: count('refused'),
    lost: outcomes.filter((o) => o.requestId && o.end === 'pending').length,
  };
}

export const describeTotals = (t: Totals) => `asked ${t.asked}, accepted ${t.accepted}, completed ${t.completed}, failed ${t.failed}, refused ${t.refused}, lost ${t.lost}`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export interface ScrapeOptions {
  /** Retry the submit with one Idempotency-Key while the gateway is unreachable or answers 5xx, until this time. */
  retryUntil?: number;
  /** Poll the status endpoint until this time. */
  pollUntil: number;
}

/** A client of one gateway, as an operator's users are: the current scraper, polled by request id. */
export class GatewayClient {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, apiKey: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { ...(apiKey ? { 'x-api-key': apiKey } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      parsed = { text };
    }
    return { status: res.status, body: parsed };
  }

  /** Submits one scrape and follows it to its end. */
  async scrape(apiKey: string, url: string, options: ScrapeOptions): Promise<Outcome> {
    const started = Date.now();
    const key = options.retryUntil ? randomUUID() : null;
    const outcome: Outcome = { url, end: 'refused', submitAttempts: 0 };
    let answer: Answer | null = null;
    for (;;) {
      outcome.submitAttempts++;
      try {
        answer = await this.request('POST', '/web-scrapper/', apiKey, { url, output_type: 'plaintext', render_js: false }, key ? { 'idempotency-key': key } : {});
        if (answer.status < 500 || !key) break;
        outcome.detail = `${answer.status} ${JSON.stringify(answer.body).slice(0, 120)}`;
      } catch (err) {
        outcome.detail = (err as Error).cause ? String(((err as Error).cause as Error).message ?? (err as Error).cause) : (err as Error).message;
        if (!key) return outcome;
      }
      if (Date.now() > (options.retryUntil ?? 0)) return outcome;
      await sleep(500);
    }
    const id = answer.body.request_id;
    if (typeof id !== 'string') {
      outcome.detail = `${answer.status} ${JSON.stringify(answer.body).slice(0, 160)}`;
      return outcome;
    }
    outcome.requestId = id;
    outcome.end = 'pending';
    let status = answer.body.status;
    while (status !== 'completed' && status !== 'failed' && Date.now() < options.pollUntil) {
      await sleep(1000);
      try {
        const polled = await this.request('GET', `/web-scrapper/${id}`, apiKey);
        if (polled.status === 404) outcome.detail = 'record not found';
        status = polled.body.status;
        if (status === 'failed') outcome.detail = JSON.stringify(polled.body.error ?? polled.body).slice(0, 160);
      } catch {
        // The gateway is restarting or out of reach: ask again.
      }
    }
    if (status === 'completed' || status === 'failed') {
      outcome.end = status;
      outcome.tookMs = Date.now() - started;
    }
    return outcome;
  }
}

/** Runs `count` scrapes at once, spread over the API keys, and waits for all of them. */
export function scrapeAll(client: GatewayClient, keys: string[], urls: string[], options: ScrapeOptions): Promise<Outcome[]> {
  return Promise.all(urls.map((url, i) => client.scrape(keys[i % keys.length], url, options)));
}

/** "12.0 s" or "12.0 s-20.5 s" (min-max), or "never" for none. */
export function range(values: number[]): string {
  if (!values.length) return 'never';
  const [low, high] = [seconds(Math.min(...values)), seconds(Math.max(...values))];
  return low === high ? low : `${low}-${high}`;
}

/** Jobs a worker found stalled (its "job stalled, will be retried" log line) after `since`, from `docker logs` (the lines carry their own timestamp). */
export function stalledJobs(logs: string, since: number): Array<{ jobId: string; at: number }> {
  const found: Array<{ jobId: string; at: number }> = [];
  for (const line of logs.split('\n')) {
    const json = line.indexOf('{');
    if (json < 0 || !line.includes('job stalled')) continue;
    try {
      const entry = JSON.parse(line.slice(json)) as { message?: string; jobId?: string; timestamp?: string };
      const at = Date.parse(entry.timestamp ?? '');
      if (entry.message?.startsWith('job stalled') && entry.jobId && at >= since) found.push({ jobId: entry.jobId, at });
    } catch {
      // not a log line of ours
    }
  }
  return found;
}
