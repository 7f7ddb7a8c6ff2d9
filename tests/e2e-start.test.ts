import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createKeyWithCli } from './support/cli.js';
import { serviceEnv } from './support/env.js';
import { startPageServer } from './support/page-server.js';
import { processGroupMembers, startProcess, type GroupMember, type ServiceProcess } from './support/processes.js';
import { withoutChromium, withoutChromiumProblem } from './support/private-network.js';
import { parsePrometheusText, samplesOf, sumOf } from './support/prometheus.js';
import { RENDERING_FIXTURES, renderingFixtureRoutes } from './support/rendering-fixtures.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * The whole system through `pnpm start`, as the README's quick start runs it on a fresh machine:
 * in production mode, without GLEANER_SECRET, so the processes share a secret generated into a
 * file, and without Chromium (hidden in a mount namespace: the README asks for none), so the
 * browser-worker stays off. HEALTH_PORT is set (every worker service would bind it), and
 * LOG_LEVEL is info so the shutdown is logged. (.ci/fresh-clone starts it with Chromium there.)
 */
const prefix = testPrefix('start');
const secretFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'gleaner-start-')), 'secret');
/** Bounds every shutdown step; a step that hangs is cut and logged ("shutdown step failed"). */
const SHUTDOWN_DEADLINE_MS = 5_000;
const { GLEANER_SECRET: _testSecret, ...env } = serviceEnv(prefix, { NODE_ENV: 'production', GLEANER_SECRET_FILE: secretFile, LOG_LEVEL: 'info', SHUTDOWN_DEADLINE_MS: String(SHUTDOWN_DEADLINE_MS) });
let system: ServiceProcess;
/** The node process that runs scripts/start-all.ts under the pnpm wrapper. */
let startAll: GroupMember;
let pages: Awaited<ReturnType<typeof startPageServer>>;
let baseUrl: string;
let healthUrl: string;
let apiKey: string;
/** What `pnpm start` wrote until it said it was listening. */
let bootOutput: string;

beforeAll(async () => {
  expect(withoutChromiumProblem()).toBeNull();
  pages = await startPageServer({
    ...renderingFixtureRoutes(),
    '/notes.txt': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('Meeting notes:\nThe budget was approved.\fSecond page of notes.');
    },
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Start page</title></head><body><p>Everything runs in one process here.</p><a href="https://example.org/x">out</a></body></html>');
    },
  });
  const [port, healthPort] = [await freePort(), await freePort()];
  const { command, args } = withoutChromium('pnpm', ['start']);
  system = startProcess(command, args, { ...env, PORT: String(port), HEALTH_PORT: String(healthPort) });
  const line = await system.waitFor(/listening on http:\/\/[\d.]+:\d+/, 90_000);
  expect(line).toContain(String(port));
  bootOutput = system.output();
  // pnpm may run the script through a shell: the process wanted is node itself.
  const node = processGroupMembers(system.child.pid!).filter((p) => /^\S*\bnode packages\/platform\/src\/run\.mjs scripts\/start-all\.ts$/.test(p.command));
  expect(node).toHaveLength(1);
  startAll = node[0];
  healthUrl = `http://127.0.0.1:${healthPort}`;
  expect(system.output()).toContain('GLEANER_SECRET is not set');
  expect(existsSync(secretFile)).toBe(true);
  baseUrl = `http://127.0.0.1:${port}`;
  apiKey = await createKeyWithCli('start-account', env);
}, 120_000);

afterAll(async () => {
  await system?.kill();
  // Whatever a failed shutdown left behind.
  if (system?.child.pid) for (const p of processGroupMembers(system.child.pid)) process.kill(p.pid, 'SIGKILL');
  await pages?.close();
  await deleteKeysWithPrefix(prefix);
});

it('scrapes and parses through `pnpm start`', async () => {
  const scrape = await fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ url: `${pages.url}/page`, output_type: 'markdown' }) });
  expect(scrape.status).toBe(200);
  const s = (await scrape.json()) as { text_content: string; markdown_content: string; links: Array<{ url: string; type: string }> };
  expect(s.text_content).toContain('Everything runs in one process here.');
  expect(s.markdown_content).toContain('Everything runs in one process here.');
  expect(s.links).toEqual(expect.arrayContaining([expect.objectContaining({ url: 'https://example.org/x', type: 'external' })]));

  const parse = await fetch(`${baseUrl}/documents/parse`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ url: `${pages.url}/notes.txt`, type: 'txt' }) });
  expect(parse.status).toBe(200);
  const p = (await parse.json()) as { status: string; data: string };
  expect(p.status).toBe('COMPLETED');
  expect(p.data).toContain('The budget was approved.');
  expect(p.data).toContain('\n\n=== Page Break ===\n\n');
}, 60_000);

it('starts without Chromium: one warning line says the browser-worker is off and how to turn it on', () => {
  const warnings = bootOutput.split('\n').filter((line) => /chromium/i.test(line));
  expect(warnings).toHaveLength(1);
  const warning = JSON.parse(warnings[0]) as { level: string; message: string };
  expect(warning.level).toBe('warn');
  expect(warning.message).toMatch(/^browser-worker off: no Chromium at \/usr\/bin\/chromium \(CHROMIUM_PATH\)\. /);
  expect(warning.message).toContain("To turn it on: install Debian's chromium package (apt-get install chromium) or point CHROMIUM_PATH at a Chromium binary, then start again");
});

it('without Chromium, render_js "auto" keeps the static page and says why; render_js true fails with E008 naming the missing browser', async () => {
  const scrape = (body: object) => fetch(`${baseUrl}/web-scrapper/`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: JSON.stringify(body) });
  const { appShell } = RENDERING_FIXTURES;
  const auto = await scrape({ url: `${pages.url}${appShell.path}` });
  expect(auto.status).toBe(200);
  const page = (await auto.json()) as { text_content: string; meta: { rendered: boolean; render_error?: string } };
  expect(page.text_content).toContain(appShell.shell);
  expect(page.text_content).not.toContain(appShell.expected.split('\n')[1]);
  expect(page.meta.rendered).toBe(false);
  expect(page.meta.render_error).toMatch(/^E008: rendering is not available: no Chromium at \/usr\/bin\/chromium \(CHROMIUM_PATH\), so pnpm start runs no browser-worker \(to render pages: install Debian's chromium package/);

  const always = await scrape({ url: `${pages.url}${appShell.path}`, render_js: true });
  expect(always.status).toBe(500);
  expect(((await always.json()) as { error: string }).error).toBe(`E008: ${page.meta.render_error!.slice('E008: '.length)}`);
}, 60_000);

it('serves /healthz, /readyz and /metrics for all services of the process on HEALTH_PORT', async () => {
  const healthz = await fetch(`${healthUrl}/healthz`);
  expect([healthz.status, await healthz.json()]).toEqual([200, { status: 'ok' }]);
  const readyz = await fetch(`${healthUrl}/readyz`);
  expect([readyz.status, await readyz.json()]).toEqual([200, { ready: true }]);
  const metrics = await fetch(`${healthUrl}/metrics`);
  expect(metrics.status).toBe(200);
  const samples = parsePrometheusText(await metrics.text());
  // Every worker's queue (no render queue: no browser-worker without Chromium), and what the
  // gateway and the workers measured for the scrape above.
  expect(new Set(samplesOf(samples, 'gleaner_queue_jobs').map((s) => s.labels.queue))).toEqual(new Set(['scrape', 'scrape-v1', 'parse', 'webhook', 'bot', 'crawl', 'map']));
  expect(sumOf(samples, 'gleaner_http_request_duration_seconds_count', { method: 'POST', route: '/web-scrapper', status: '200' })).toBeGreaterThanOrEqual(1);
  expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'scrape', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
  expect(sumOf(samples, 'gleaner_job_duration_seconds_count', { queue: 'parse', outcome: 'completed' })).toBeGreaterThanOrEqual(1);
  // One server for the process: no service failed on a second bind of the port.
  expect(system.output()).not.toMatch(/EADDRINUSE/);
});

it('stops cleanly on SIGTERM: the start-all process itself logs the shutdown, finishes every step in time and exits, leaving no process', async () => {
  const signalled = Date.now();
  // SIGTERM to the whole group, as a terminal's Ctrl-C or a process manager does. The pnpm
  // wrapper passes it on as well (the start script execs node) and waits; what must end cleanly
  // is the node process behind it.
  process.kill(-system.child.pid!, 'SIGTERM');
  const running = await waitFor(() => processGroupMembers(system.child.pid!).some((p) => p.pid === startAll.pid), (alive) => !alive, 4 * SHUTDOWN_DEADLINE_MS);
  const tookMs = Date.now() - signalled;
  expect(running).toBe(false);
  const output = system.output();
  expect(output).toMatch(/"message":"shutting down"/);
  // A step cut by the deadline would still end the process: these lines say one hung.
  expect(output).not.toMatch(/shutdown step failed|shutdown deadline reached|shutdown failed/);
  expect(tookMs).toBeLessThan(2 * SHUTDOWN_DEADLINE_MS);
  // pnpm exits right after node, with node's exit code; nothing of the group stays behind.
  const pnpmExit = await waitFor(() => ({ code: system.child.exitCode, signal: system.child.signalCode }), (e) => e.code !== null || e.signal !== null, 5_000);
  expect(pnpmExit).toEqual({ code: 0, signal: null });
  expect(await waitFor(() => processGroupMembers(system.child.pid!), (members) => members.length === 0, 5_000)).toEqual([]);
  await expect(fetch(`${healthUrl}/healthz`)).rejects.toThrow();
  await expect(fetch(`${baseUrl}/healthz`)).rejects.toThrow();
  reportFigures(`pnpm start: SIGTERM to exit of the start-all process in ${tookMs} ms\n`);
}, 60_000);
