import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startLocalRedisUnlessAnswering, type Logger } from '@gleaner/platform';
import { serviceEnv } from './support/env.js';
import { cleanEnvironment, inPrivateNetwork, privateNetworkProblem } from './support/private-network.js';
import { jsonLines, RUN_PROGRAM, settledWithin, startProcess } from './support/processes.js';
import { DisposableRedis, freePort } from './support/redis-server.js';
import { deleteKeysWithPrefix, testPrefix } from './support/redis.js';

/** A logger whose info lines the test reads (the only level startLocalRedisUnlessAnswering uses). */
function recordingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  return { logger: { info: (message: string) => messages.push(message) } as unknown as Logger, messages };
}

describe("pnpm start's own Redis (REDIS_URL unset, nothing on the default address)", () => {
  it('starts redis-server with durable data in its directory, says so in one line, and stops it', async () => {
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'gleaner-local-redis-')), 'redis');
    const port = await freePort();
    const { logger, messages } = recordingLogger();
    try {
      const local = await startLocalRedisUnlessAnswering(logger, dir, port);
      expect(local).not.toBeNull();
      expect(messages).toEqual([`no Redis answered at redis://127.0.0.1:${port} and REDIS_URL is not set: started redis-server there for this machine, data in ${path.relative(process.cwd(), dir)} (it stops with this process; set REDIS_URL to use another Redis)`]);
      const client = new Redis(`redis://127.0.0.1:${port}`);
      await client.set('kept', 'across restarts');
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      client.disconnect();
      await local!.stop();
      expect(existsSync(path.join(dir, 'appendonlydir'))).toBe(true);

      // Started again on the same directory, it has the data; with that one answering, none is started.
      const again = await startLocalRedisUnlessAnswering(logger, dir, port);
      const reader = new Redis(`redis://127.0.0.1:${port}`);
      expect(await reader.get('kept')).toBe('across restarts');
      expect(await startLocalRedisUnlessAnswering(logger, dir, port)).toBeNull();
      reader.disconnect();
      await again!.stop();
      expect(messages).toHaveLength(2);
    } finally {
      rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });

  it('without redis-server installed: one line naming what to install and exit code 1', async () => {
    expect(privateNetworkProblem()).toBeNull();
    // Nothing answers on 6379 in a network namespace of its own; PATH holds node and no redis-server.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'gleaner-no-redis-'));
    try {
      const { command, args } = inPrivateNetwork('/bin/sh', ['-c', `ln -s "${process.execPath}" "${bin}/node" && PATH="${bin}" exec node ${RUN_PROGRAM} scripts/start-all.ts`]);
      const system = startProcess(command, args, cleanEnvironment({ GLEANER_SECRET: 'test-secret-0123456789abcdef', PORT: '0' }));
      const code = await settledWithin(new Promise<number | null>((resolve) => system.child.once('close', resolve)), 60_000, 'still running');
      expect(code).toBe(1);
      const lines = system.output().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0])).toEqual({
        level: 'error',
        service: 'gleaner',
        timestamp: expect.any(String),
        message: 'gleaner failed to start: no Redis answers at redis://127.0.0.1:6379 and redis-server is not installed: install it (Debian: apt-get install redis-server) or set REDIS_URL to a Redis',
      });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

it('pnpm start logs a lost Redis once per outage, and once when it is back, not once per retry', async () => {
  const redis = await DisposableRedis.start();
  const prefix = testPrefix('outage-log');
  const system = startProcess(process.execPath, [RUN_PROGRAM, 'scripts/start-all.ts'], serviceEnv(prefix, { REDIS_URL: redis.url, LOG_LEVEL: 'info', PORT: '0' }));
  try {
    await system.waitFor(/listening on http:\/\//, 90_000);
    const before = system.output().length;
    await redis.stop();
    // Every worker of the five services retries every 0.2-2 s: before, ~130 lines in 25 s.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    await redis.resume();
    await system.waitFor(/answers again after \d+ s/, 30_000);
    // And quiet after it: every worker is back too.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const output = system.output().slice(before);
    const during = jsonLines(output);
    const expected = [
      // The first error seen: ECONNRESET when the kill cut a connection, ECONNREFUSED when one was
      // being made, "Connection is closed" for a command sent on a closed one, EPIPE for one being
      // written as the kill closed the socket (seen once in CI).
      expect.stringMatching(new RegExp(`^cannot reach Redis at ${redis.url.replace(/[/.]/g, '\\$&')}: (.*ECONNREFUSED|.*ECONNRESET|.*EPIPE|Connection is closed).*; retrying until it answers`)),
      expect.stringMatching(/^Redis at \S+ answers again after \d+ s \(\d+ more connection errors not logged\)$/),
    ];
    // With the whole output, should anything else have been logged.
    expect({ messages: during.map((l) => l.message), output }).toEqual({ messages: expected, output: expect.any(String) });
    expect(Number(/\((\d+) more/.exec(String(during[1].message))![1])).toBeGreaterThan(5);
  } finally {
    await system.kill();
    await deleteKeysWithPrefix(prefix, redis.url);
    await redis.dispose();
  }
}, 150_000);
