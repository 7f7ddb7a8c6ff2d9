import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cleanEnvironment, inPrivateNetwork, privateNetworkProblem } from './support/private-network.js';
import { REPO_ROOT } from './support/processes.js';

const run = promisify(execFile);

/** Exit code, stdout and stderr of a command that may fail. */
async function outcome(command: string, args: string[], options: { env: Record<string, string>; timeout: number }) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: REPO_ROOT, ...options, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('pnpm test on a machine without its prerequisites', () => {
  let bin: string;
  beforeAll(() => {
    // A PATH with what pnpm itself needs and none of redis-server, openssl, ip, apt-get.
    bin = mkdtempSync(path.join(os.tmpdir(), 'gleaner-bare-path-'));
    for (const tool of ['node', 'pnpm', 'sh', 'env', 'id']) {
      symlinkSync(tool === 'node' ? process.execPath : onPath(tool), path.join(bin, tool));
    }
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('names what is missing and exits 1 before type-checking or running any test', async () => {
    const result = await outcome(path.join(bin, 'pnpm'), ['test'], { env: cleanEnvironment({ PATH: bin }), timeout: 60_000 });
    expect(result.code).toBe(1);
    // Chromium, ip and haproxy are looked for at their Debian paths too, which this PATH cannot hide.
    expect(result.stderr).toMatch(/^pnpm test needs( chromium)? redis-server openssl( iproute2)?( haproxy)? unzip, which this machine lacks \(Debian: sudo apt-get install( chromium)? redis-server openssl( iproute2)?( haproxy)? unzip\); nothing was run\n$/);
    // Nothing after the check ran: no type check, no lint, no jest (pnpm echoes each script it runs).
    expect(result.stdout + result.stderr).toContain('> sh scripts/test-prerequisites.sh && pnpm run typecheck');
    expect(result.stdout + result.stderr).not.toMatch(/> gleaner@ typecheck|> n8n-nodes-gleaner|Test Suites/);
  });
});

describe('the suite and a Redis on 6379', () => {
  const problem = privateNetworkProblem();

  it('leaves a Redis on 127.0.0.1:6379 untouched: the suite starts its own', async () => {
    expect(problem).toBeNull();
    // In a network namespace of its own, so that the 6379 here is a Redis this test owns.
    const script = `
      dir=$(mktemp -d)
      redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes --logfile "$dir/log" >/dev/null
      until redis-cli -p 6379 ping >/dev/null 2>&1; do sleep 0.1; done
      redis-cli -p 6379 -n 11 set someone-elses-key kept >/dev/null
      echo "before $(redis-cli -p 6379 info stats | grep -E '^total_(connections_received|commands_processed):' | tr -d '\\r' | tr '\\n' ' ')"
      pnpm test:file packages/store/test/stores.test.ts >"$dir/jest.log" 2>&1; echo "jest exit $?"
      echo "after $(redis-cli -p 6379 info stats | grep -E '^total_(connections_received|commands_processed):' | tr -d '\\r' | tr '\\n' ' ')"
      echo "keys $(redis-cli -p 6379 info keyspace | grep '^db' | tr -d '\\r' | tr '\\n' ' ')"
      redis-cli -p 6379 shutdown nosave >/dev/null 2>&1
      tail -n 5 "$dir/jest.log"; rm -rf "$dir"`;
    const { command, args } = inPrivateNetwork('sh', ['-c', script]);
    const result = await outcome(command, args, { env: cleanEnvironment(), timeout: 120_000 });
    const figures = (label: string) => {
      const line = result.stdout.split('\n').find((l) => l.startsWith(`${label} `)) ?? '';
      return { connections: Number(/total_connections_received:(\d+)/.exec(line)?.[1]), commands: Number(/total_commands_processed:(\d+)/.exec(line)?.[1]) };
    };
    expect(result.stdout).toContain('jest exit 0');
    const before = figures('before');
    const after = figures('after');
    // One connection and one command since: the INFO that read these figures.
    expect({ connections: after.connections - before.connections, commands: after.commands - before.commands }).toEqual({ connections: 1, commands: 1 });
    expect(result.stdout).toMatch(/^keys db11:keys=1,expires=0,avg_ttl=0\S* $/m);
  });
});

describe('the exit status of a run with the suite\'s own Redis', () => {
  it('is not 0 when a test fails (the Redis that globalSetup started is stopped before jest exits)', async () => {
    // A clean environment has no GLEANER_TEST_REDIS_URL: the run starts its own Redis.
    const result = await outcome('pnpm', ['test:file', '--testMatch', '<rootDir>/tests/fixtures/always-fails.check.ts'], { env: cleanEnvironment(), timeout: 120_000 });
    expect(result.stdout + result.stderr).toContain('fails on purpose');
    expect(result.code).toBe(1);
  });
});

/** Where `tool` is on this process's PATH. */
function onPath(tool: string): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, tool);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new Error(`${tool} not found on PATH`);
}
