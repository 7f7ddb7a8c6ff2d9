/**
 * A steady stream of scrape submits through a gateway while a test breaks something (a Redis
 * master, a gateway, a worker's host), and what became of each: accepted (200 or 202), refused
 * (503, or no answer), and for every accepted one whether it completed. Bounded in count and time,
 * aimed only at addresses the test made.
 */
export interface Shot {
  n: number;
  sentAt: number;
  /** HTTP status, or 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  requestId?: string;
  /** Final status read on the status endpoint ('completed', 'failed', …), for accepted shots. */
  final?: string;
  /** When it was answered, and when it was seen ended (the answer itself for a 200; else a poll, to 0.5 s). */
  answeredAt?: number;
  endedAt?: number;
  /** What went wrong: the client's error, or the body of an answer that was not 200 or 202. */
  error?: string;
}

export interface LoadOptions {
  /** Gateway (or balancer) base URL. */
  gateway: string;
  apiKey: string;
  /** The page the n-th submit asks for (unique, so no shot is answered from the result cache). */
  page: (n: number) => string;
  intervalMs: number;
  durationMs: number;
  /** Bound on one submit (longer than the gateway's window). */
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function steadyLoad(o: LoadOptions): Promise<Shot[]> {
  const shots: Shot[] = [];
  const pending: Promise<void>[] = [];
  const start = Date.now();
  for (let n = 0; Date.now() - start < o.durationMs; n++) {
    const shot: Shot = { n, sentAt: Date.now(), status: 0 };
    shots.push(shot);
    pending.push(
      fetch(`${o.gateway}/web-scrapper/`, {
        method: 'POST',
        headers: { 'x-api-key': o.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ url: o.page(n) }),
        signal: AbortSignal.timeout(o.timeoutMs ?? 30_000),
      }).then(
        async (res) => {
          shot.status = res.status;
          shot.answeredAt = Date.now();
          const body = (await res.json().catch(() => ({}))) as { request_id?: string; status?: string };
          shot.requestId = body.request_id;
          if (res.status !== 200 && res.status !== 202) shot.error = JSON.stringify(body).slice(0, 300);
          if (res.status === 200) {
            shot.final = body.status;
            shot.endedAt = shot.answeredAt;
          }
        },
        (err: Error) => {
          shot.error = err.message;
        },
      ),
    );
    await sleep(o.intervalMs);
  }
  await Promise.all(pending);
  return shots;
}

/** Polls every accepted shot not yet ended until it ends or `timeoutMs` passes. */
export async function settle(shots: Shot[], gateway: string, apiKey: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = shots.filter((s) => accepted(s) && s.final !== 'completed' && s.final !== 'failed');
    if (open.length === 0 || Date.now() > deadline) return;
    await Promise.all(
      open.map(async (s) => {
        const res = await fetch(`${gateway}/web-scrapper/${s.requestId}`, { headers: { 'x-api-key': apiKey }, signal: AbortSignal.timeout(10_000) }).catch(() => null);
        if (!res) return;
        const body = (await res.json().catch(() => ({}))) as { status?: string };
        s.final = res.status === 404 ? 'missing' : body.status;
        if (s.final === 'completed' || s.final === 'failed') s.endedAt = Date.now();
      }),
    );
    await sleep(500);
  }
}

export function accepted(s: Shot): boolean {
  return (s.status === 200 || s.status === 202) && Boolean(s.requestId);
}

export interface LoadFigures {
  sent: number;
  accepted: number;
  completed: number;
  /** Accepted and then not completed (missing, failed, or still open at the end). */
  lost: number;
  /** Refused: 503, or no answer. */
  refused: number;
  /** Other answers (a bug, whatever the fault). */
  other: number;
  /** Their statuses and bodies, to tell what went wrong. */
  otherAnswers: string[];
  /** From the fault to the first submit accepted after the last one refused (0: none refused). */
  recoveryMs: number;
  /** Accepted 202s (answered after the window). */
  deferred: number;
  /** What the lost ones ended as (status read last, or 'open'), with their request ids. */
  lostAs: string[];
}

export function loadFigures(shots: Shot[], faultAt: number): LoadFigures {
  const ok = shots.filter(accepted);
  const refused = shots.filter((s) => s.status === 503 || s.status === 0);
  const lastRefused = Math.max(faultAt, ...refused.map((s) => s.sentAt));
  const firstAfter = shots.find((s) => s.sentAt > lastRefused && accepted(s));
  return {
    sent: shots.length,
    accepted: ok.length,
    completed: ok.filter((s) => s.final === 'completed').length,
    lost: ok.filter((s) => s.final !== 'completed').length,
    refused: refused.length,
    other: shots.length - ok.length - refused.length,
    otherAnswers: shots.filter((s) => !accepted(s) && s.status !== 503 && s.status !== 0).map((s) => `${s.status} ${s.error ?? ''}`),
    recoveryMs: refused.some((s) => s.sentAt >= faultAt) && firstAfter ? firstAfter.sentAt - faultAt : 0,
    deferred: ok.filter((s) => s.status === 202).length,
    lostAs: ok.filter((s) => s.final !== 'completed').map((s) => `${s.requestId} ${s.final ?? 'open'}`),
  };
}

export function figuresLine(name: string, f: LoadFigures): string {
  return `${name}: sent ${f.sent}, accepted ${f.accepted} (${f.deferred} as 202), completed ${f.completed}, lost ${f.lost}, refused ${f.refused}, other ${f.other}, recovery ${(f.recoveryMs / 1000).toFixed(1)} s`;
}
