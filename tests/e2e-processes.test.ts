import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createKeyWithCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { html, startPageServer } from './support/page-server.js';
import { startService, type ServiceProcess } from './support/processes.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';

/**
 * Gateway and scraper-worker as separate processes, as operators run them. A worker killed with
 * SIGKILL in the middle of a job must not lose the request: a new worker finishes it. A job that
 * kills a second worker is failed for good, and its request record says so.
 */
const prefix = testPrefix('e2e');
const env = serviceEnv(prefix, { WORKER_LOCK_DURATION_MS: '2000', WORKER_STALLED_INTERVAL_MS: '1000', SYNC_WINDOW_MS: '3000' });
let pages: Awaited<ReturnType<typeof startPageServer>>;
let gateway: ServiceProcess;
const workers: ServiceProcess[] = [];
let baseUrl: string;
let apiKey: string;
let slowHits = 0;

beforeAll(async () => {
  pages = await startPageServer({
    '/article': html('<article><h1>Harbour news</h1><p>The harbour reopened on Monday after a week of storms, and the first ferries left at dawn.</p><p>Fishermen said the damage was smaller than feared.</p></article>', '<title>Harbour news</title>'),
    // The first fetch hangs (the worker will be killed while waiting); later ones answer at once.
    '/slow': async (_req, res) => {
      slowHits++;
      if (slowHits === 1) await new Promise((r) => setTimeout(r, 15_000));
      html('<p>Recovered after a worker crash, the scrape finished on another worker.</p>', '<title>Slow page</title>')(_req, res);
    },
    // Never answers: every worker that fetches it is killed while waiting (the job "kills" it).
    '/hang': (req) => new Promise((resolve) => req.socket.once('close', resolve)),
  });
  const port = await freePort();
  gateway = startService('gateway', { ...env, PORT: String(port) });
  workers.push(startService('scraper-worker', env));
  await gateway.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
  await workers[0].waitFor(/ready/);
  baseUrl = `http://127.0.0.1:${port}`;
  apiKey = await createKeyWithCli('e2e-account', env);
}, 90_000);

afterAll(async () => {
  await Promise.all([gateway?.kill(), ...workers.map((w) => w.kill())]);
  await pages?.close();
  await deleteKeysWithPrefix(prefix);
});

it('scrapes a page through gateway and worker processes', async () => {
  const res = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}/article` }) });
  expect(res.status).toBe(200);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.text_content).toContain('The harbour reopened on Monday');
  expect((body.meta as Record<string, unknown>).title).toBe('Harbour news');
});

it('finishes a request whose worker was killed with SIGKILL mid-job', async () => {
  const res = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}/slow` }) });
  expect(res.status).toBe(202);
  const { request_id: id } = (await res.json()) as { request_id: string };
  expect(slowHits).toBe(1); // the worker is inside the job, waiting on the target
  await workers[0].kill('SIGKILL');
  const replacement = startService('scraper-worker', env);
  workers.push(replacement);
  await replacement.waitFor(/ready/);
  let status: Record<string, unknown> = {};
  for (let i = 0; i < 60 && status.status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 500));
    status = (await (await fetch(`${baseUrl}/web-scrapper/${id}`, { headers: { 'x-api-key': apiKey } })).json()) as Record<string, unknown>;
  }
  expect(status.status).toBe('completed');
  expect((status.content as { text: string }).text).toContain('Recovered after a worker crash');
  expect(slowHits).toBeGreaterThanOrEqual(2);
}, 60_000);

it('fails a request whose job killed two workers: the status endpoint shows it failed with E008, and the next worker keeps serving', async () => {
  const live = () => workers.filter((w) => w.child.exitCode === null && w.child.signalCode === null);
  const res = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}/hang` }) });
  expect(res.status).toBe(202);
  const { request_id: id } = (await res.json()) as { request_id: string };
  const status = async () => (await (await fetch(`${baseUrl}/web-scrapper/${id}`, { headers: { 'x-api-key': apiKey } })).json()) as Record<string, unknown>;

  for (let run = 1; run <= 2; run++) {
    // The job is running (its worker waits on the target): kill that worker, start another.
    expect(await waitFor(() => pages.hits['/hang'] ?? 0, (n) => n >= run, 30_000)).toBe(run);
    expect(live()).toHaveLength(1);
    expect((await status()).status).toBe('processing');
    await live()[0].kill('SIGKILL');
    const next = startService('scraper-worker', env);
    workers.push(next);
    await next.waitFor(/ready/);
  }

  // The second worker found the job stalled and ran it alone (crash isolation); the third finds it
  // stalled again, marked as having run alone, and fails it as the crasher without running it again.
  const final = await waitFor(status, (s) => s.status !== 'processing', 30_000);
  expect(final).toEqual({ request_id: id, url: `${pages.url}/hang`, status: 'failed', timestamp: expect.any(Number), error: 'E008: processing failed repeatedly (worker crashed)' });
  expect(pages.hits['/hang']).toBe(2);
  expect(live()).toHaveLength(1);
  expect(live()[0].output()).toMatch(/crashed its worker while running alone/);

  const after = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ url: `${pages.url}/article` }) });
  // A worker that has just started may take longer than the 3 s window on a loaded machine (its
  // extraction thread starts with its first page), so a 202 is followed on the status endpoint.
  expect([200, 202]).toContain(after.status);
  const answer = (await after.json()) as Record<string, unknown>;
  const text = after.status === 200
    ? answer.text_content
    : ((await waitFor(async () => (await (await fetch(`${baseUrl}/web-scrapper/${answer.request_id as string}`, { headers: { 'x-api-key': apiKey } })).json()) as Record<string, unknown>, (s) => s.status !== 'processing', 30_000)).content as { text?: string } | undefined)?.text;
  expect(text).toContain('The harbour reopened on Monday');
}, 90_000);
