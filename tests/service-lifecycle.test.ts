import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { serviceEnv } from './support/env.js';
import { processGroupMembers, REPO_ROOT, RUN_PROGRAM, startProcess, type ServiceProcess } from './support/processes.js';
import { freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';
import { waitFor } from './support/webhook-receiver.js';
import { reportFigures } from './support/figures.js';

/**
 * Services started exactly as INTERFACE.md tells operators (`pnpm --filter @gleaner/<service>
 * start`): they come up, and a SIGTERM sent to the pnpm process alone (what a process manager
 * that knows only the pid it started does) stops them cleanly, pnpm exiting 0 within the shutdown
 * deadline. And a bad setting stops a service at boot with one line naming it.
 */
const prefix = testPrefix('lifecycle');
const SHUTDOWN_DEADLINE_MS = 5_000;
const env = serviceEnv(prefix, { LOG_LEVEL: 'info', SHUTDOWN_DEADLINE_MS: String(SHUTDOWN_DEADLINE_MS) });
const started: ServiceProcess[] = [];
const run = promisify(execFile);

function pnpmStart(service: string, extra: Record<string, string>): { proc: ServiceProcess; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> } {
  const proc = startProcess('pnpm', ['--filter', `@gleaner/${service}`, 'start'], { ...env, ...extra });
  started.push(proc);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => proc.child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return { proc, exit };
}

afterAll(async () => {
  // Whatever a failed test left behind, pnpm and node alike.
  for (const proc of started) {
    await proc.kill('SIGKILL');
    if (proc.child.pid) for (const p of processGroupMembers(proc.child.pid)) process.kill(p.pid, 'SIGKILL');
  }
  await deleteKeysWithPrefix(prefix);
});

describe('pnpm --filter @gleaner/<service> start', () => {
  it('gateway and scraper-worker come up ready, and a SIGTERM to pnpm alone stops each cleanly: exit 0 within the shutdown deadline, no process left', async () => {
    const [port, healthPort] = [await freePort(), await freePort()];
    const gateway = pnpmStart('gateway', { PORT: String(port) });
    const worker = pnpmStart('scraper-worker', { HEALTH_PORT: String(healthPort) });
    await gateway.proc.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}`), 90_000);
    await worker.proc.waitFor(/scraper-worker ready, consuming scrape, scrape-v1/, 90_000);
    const readyz = async (url: string) => (await fetch(url).catch(() => null))?.status ?? 0;
    expect(await waitFor(() => readyz(`http://127.0.0.1:${port}/readyz`), (s) => s === 200, 20_000)).toBe(200);
    expect(await waitFor(() => readyz(`http://127.0.0.1:${healthPort}/readyz`), (s) => s === 200, 20_000)).toBe(200);

    // pnpm runs the start script through a shell; the script execs node, so the service is pnpm's
    // own child, no shell in between to swallow the signal pnpm forwards.
    for (const { proc } of [gateway, worker]) {
      const members = processGroupMembers(proc.child.pid!);
      const node = members.filter((p) => /(^|\/)node \.\.\/\.\.\/packages\/platform\/src\/run\.mjs src\/main\.ts$/.test(p.command));
      expect(node.map((p) => p.ppid)).toEqual([proc.child.pid]);
      expect(members.filter((p) => /^(\S*\/)?(ba|da)?sh\b/.test(p.command))).toEqual([]);
    }

    const signalled = Date.now();
    // The pnpm process only, not its group.
    gateway.proc.child.kill('SIGTERM');
    worker.proc.child.kill('SIGTERM');
    const [g, w] = await Promise.all([gateway.exit, worker.exit]);
    expect({ code: g.code, signal: g.signal }).toEqual({ code: 0, signal: null });
    expect({ code: w.code, signal: w.signal }).toEqual({ code: 0, signal: null });
    expect(g.at - signalled).toBeLessThan(SHUTDOWN_DEADLINE_MS);
    expect(w.at - signalled).toBeLessThan(SHUTDOWN_DEADLINE_MS);
    for (const { proc } of [gateway, worker]) {
      // The services themselves logged the signal and finished every step in time.
      expect(proc.output()).toMatch(/"message":"shutting down".*"signal":"SIGTERM"/);
      expect(proc.output()).not.toMatch(/shutdown step failed|shutdown deadline reached|shutdown failed|ERR_PNPM/);
      // esbuild's service process (bundling at start) is gone too; nothing of the group stays behind.
      expect(await waitFor(() => processGroupMembers(proc.child.pid!), (members) => members.length === 0, 5_000)).toEqual([]);
    }
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${healthPort}/healthz`)).rejects.toThrow();
    reportFigures(`SIGTERM to pnpm: gateway exited 0 in ${g.at - signalled} ms, scraper-worker in ${w.at - signalled} ms\n`);
  }, 180_000);
});

describe('a bad setting fails loudly at boot', () => {
  it('the gateway exits 1 with one JSON line on stderr naming every bad variable, and nothing else', async () => {
    const outcome = await run(process.execPath, [RUN_PROGRAM, 'services/gateway/src/main.ts'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env, PORT: 'abc', SYNC_WINDOW_MS: '-1' },
      timeout: 60_000,
    }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
    expect({ code: outcome.code, stdout: outcome.stdout }).toEqual({ code: 1, stdout: '' });
    const lines = outcome.stderr!.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toEqual({
      level: 'error',
      service: 'gateway',
      message: 'gateway failed to start: invalid configuration: "PORT" must be a number; "SYNC_WINDOW_MS" must be greater than or equal to 0',
      timestamp: expect.any(String),
    });
  }, 60_000);

  it('a worker started through pnpm exits non-zero, its one line naming the variable, without a stack trace', async () => {
    const worker = pnpmStart('scraper-worker', { WORKER_LOCK_DURATION_MS: 'soon' });
    const { code } = await worker.exit;
    expect(code).not.toBe(0);
    const output = worker.proc.output();
    const lines = output.split('\n').filter((line) => line.includes('WORKER_LOCK_DURATION_MS'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]).message).toBe('scraper-worker failed to start: invalid configuration: "WORKER_LOCK_DURATION_MS" must be a number');
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toMatch(/ready/);
  }, 60_000);
});
