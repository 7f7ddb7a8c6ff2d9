import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { webhookDeliveryId } from '@gleaner/queues';
import { serviceEnv } from './support/env.js';
import { GatewayHarness, type TestAccount } from './support/gateway.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { deleteKeysWithPrefix, testPrefix, testRedis } from './support/redis.js';
import { startScriptedWorkers } from './support/scripted-processors.js';
import { startWebhookReceiver, waitFor, type ReceivedDelivery } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * Issue 24, fair sharing in the webhook dispatcher: an account whose receiver never answers must
 * not hold every delivery slot (each attempt lasts WEBHOOK_TIMEOUT_MS) and delay another account's
 * deliveries. Two real dispatcher processes of 16 slots each (32 in all, one default dispatcher's
 * worth) with the default share per account (ACCOUNT_MAX_CONCURRENT_JOBS unset: half of
 * WEBHOOK_CONCURRENCY, 8, counted over both). Requests are completed by the in-process gateway
 * and scripted scrape workers; what is under test is the dispatchers.
 *
 * Deliveries over their account's cap are put back as delayed jobs many times before they are
 * sent: X-Webhook-Attempt must still number real sends, 1, 2, 3… per delivery.
 */
const prefix = testPrefix('webhook-fair-sharing');
const TIMEOUT_MS = 8_000;
const env = serviceEnv(prefix, { WEBHOOK_CONCURRENCY: '16', WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_BACKOFF_BASE_MS: '500' });
// The default share is what is under test (tests/support/env.ts lifts it for other tests).
delete env.ACCOUNT_MAX_CONCURRENT_JOBS;
const SHARE = 8;

let h: GatewayHarness;
let workers: { close(): Promise<void> };
const dispatchers: ServiceProcess[] = [];
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  h = await GatewayHarness.start(prefix, { SYNC_WINDOW_MS: '3000' });
  workers = await startScriptedWorkers(prefix);
  a = await h.account('slow-receiver');
  b = await h.account('neighbour');
  for (let i = 0; i < 2; i++) dispatchers.push(startService('webhook-dispatcher', env));
  await Promise.all(dispatchers.map((d) => d.waitFor(/ready/, 90_000)));
}, 120_000);

afterAll(async () => {
  await Promise.all(dispatchers.map((d) => d.kill('SIGKILL')));
  await workers?.close();
  await h?.stop();
  await deleteKeysWithPrefix(prefix);
});

/** A scripted scrape that completes at once, with its completion sent to `webhook`. */
async function scrape(account: TestAccount, webhook: string): Promise<{ requestId: string; status: number; sentAt: number; answeredAt: number }> {
  const sentAt = Date.now();
  const res = await fetch(`${h.url}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/sleep/0', webhook }) });
  const body = (await res.json()) as { request_id: string };
  return { requestId: body.request_id, status: res.status, sentAt, answeredAt: Date.now() };
}

/** X-Webhook-Attempt of each send, grouped by delivery, in arrival order. */
function attemptsByDelivery(deliveries: ReceivedDelivery[]): Map<string, string[]> {
  const byDelivery = new Map<string, string[]>();
  for (const d of deliveries) {
    const id = d.headers['x-webhook-delivery'] as string;
    byDelivery.set(id, [...(byDelivery.get(id) ?? []), d.headers['x-webhook-attempt'] as string]);
  }
  return byDelivery;
}

describe('webhook-dispatcher (two processes of 16 slots, default share 8 per account)', () => {
  it("delivers account B's webhook within seconds while account A's receiver hangs on 40 deliveries; attempts stay numbered by real sends", async () => {
    const hanging = await startWebhookReceiver(['hang']);
    const prompt = await startWebhookReceiver([200]);
    try {
      const flood = await Promise.all(Array.from({ length: 40 }, () => scrape(a, hanging.url)));
      expect(flood.map((r) => r.status)).toEqual(flood.map(() => 200));
      // A's share of the slots is taken by hanging sends; its other deliveries wait.
      expect(await waitFor(() => hanging.inFlight(), (n) => n >= SHARE, 30_000)).toBeGreaterThanOrEqual(SHARE);
      await new Promise((r) => setTimeout(r, 1_500));

      const neighbour = await scrape(b, prompt.url);
      expect(neighbour.status).toBe(200);
      const [delivered] = await waitFor(() => prompt.deliveries, (d) => d.length >= 1, 30_000);
      const waitedMs = delivered.at - neighbour.sentAt;
      reportFigures(`webhook fair sharing: B's delivery arrived ${waitedMs} ms after B sent its request (answered in ${neighbour.answeredAt - neighbour.sentAt} ms), beside ${hanging.inFlight()} of A's hanging sends (${hanging.deliveries.length} sent so far)\n`);
      expect(waitedMs).toBeLessThan(5_000);
      expect({ id: delivered.headers['x-webhook-delivery'], attempt: delivered.headers['x-webhook-attempt'], answered: delivered.answeredWith }).toEqual({ id: webhookDeliveryId(neighbour.requestId), attempt: '1', answered: 200 });

      // Let A's deliveries go round: retries of the first ones (after their timeout) beside first
      // sends of deliveries that were put back for the cap again and again.
      await waitFor(() => attemptsByDelivery(hanging.deliveries), (m) => m.size >= 2 * SHARE + 4 && [...m.values()].filter((n) => n.length >= 2).length >= 4, 90_000);
      const byDelivery = attemptsByDelivery(hanging.deliveries);
      const sends = hanging.deliveries.length;
      // Every delivery was sent as attempt 1, then 2, 3…: no number skipped for a deferral.
      for (const [id, attempts] of byDelivery) expect({ id, attempts }).toEqual({ id, attempts: attempts.map((_, n) => String(n + 1)) });
      expect(byDelivery.size).toBeGreaterThanOrEqual(2 * SHARE + 4);
      // Never more than A's share in flight at once, over both dispatchers.
      expect(hanging.peakInFlight()).toBeLessThanOrEqual(SHARE);

      // The deliveries were deferred, many times: BullMQ's event stream has a 'delayed' event per
      // deferral and per scheduled retry (at most one per send).
      const aIds = new Set(flood.map((r) => webhookDeliveryId(r.requestId)));
      const redis = testRedis();
      let delayed = 0;
      try {
        const events = (await redis.xrange(`${prefix}:webhook:events`, '-', '+')) as Array<[string, string[]]>;
        for (const [, fields] of events) {
          const field = (name: string) => fields[fields.indexOf(name) + 1];
          if (field('event') === 'delayed' && aIds.has(field('jobId'))) delayed++;
        }
        // And what BullMQ counts as started agrees with what the receiver saw.
        const started = await Promise.all([...byDelivery.keys()].map((id) => redis.hget(`${prefix}:webhook:${id}`, 'ats')));
        const seen = [...byDelivery.values()].map((attempts) => attempts.length);
        started.forEach((ats, n) => expect(Number(ats)).toBeGreaterThanOrEqual(seen[n]));
        started.forEach((ats, n) => expect(Number(ats)).toBeLessThanOrEqual(seen[n] + 1)); // +1: a send starting just now
      } finally {
        redis.disconnect();
      }
      reportFigures(`webhook fair sharing: ${sends} sends of A's ${byDelivery.size} deliveries so far, at most ${hanging.peakInFlight()} in flight, ${delayed - sends} or more deferrals for the cap\n`);
      expect(delayed - sends).toBeGreaterThan(sends);
    } finally {
      await hanging.close();
      await prompt.close();
    }
  }, 180_000);
});
