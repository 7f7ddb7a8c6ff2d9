// The test suite's own Redis. Plain JavaScript: jest loads its globalSetup and globalTeardown
// (below) with Node's own loader, which neither reads TypeScript nor maps `.js` imports to `.ts`.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** @returns {Promise<number>} */
export async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

/** @param {number} port @returns {Promise<boolean>} */
export async function answersPing(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => {
      socket.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
  });
}

/**
 * A redis-server on a free port with a scratch directory and no persistence, so tests never touch
 * a Redis they were not given (a developer's own on 6379). It runs under a shell that stops it
 * when the shell's stdin closes: when jest ends, however it ends (Ctrl-C skips globalTeardown), no
 * redis-server or scratch directory is left behind.
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startSuiteRedis() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gleaner-test-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', path.join(dir, 'redis.log')];
  // The shell also removes the scratch directory once redis-server has stopped.
  const stopsWithStdin = 'dir=$1; shift; redis-server "$@" & pid=$!; read -r _; kill $pid; wait $pid; rm -rf "$dir"';
  const child = spawn('sh', ['-c', stopsWithStdin, 'suite-redis', dir, ...args], { stdio: ['pipe', 'ignore', 'inherit'] });
  // Neither the child nor its pipe keeps jest's process alive; the pipe closing is the stop signal.
  child.unref();
  /** @type {any} */ (child.stdin).unref?.();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    // Referenced again while it stops: with nothing else pending, an unreferenced child would let
    // Node end jest's process here, with exit code 0 whatever the tests' outcome.
    child.ref();
    child.stdin?.end();
    await exited;
  };
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await answersPing(port)) return { url: `redis://127.0.0.1:${port}/11`, stop };
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new Error('the test suite could not start redis-server (is it installed? `pnpm test` checks its prerequisites first)');
}

/**
 * jest globalSetup: the suite's own Redis unless GLEANER_TEST_REDIS_URL names one; with
 * GLEANER_TEST_REDIS_MODE=cluster or sentinel, a Redis Cluster or a Sentinel group. Set in this
 * process's environment before jest starts its workers, the URL reaches every test file
 * (tests/support/redis.ts) and every process they start.
 */
export async function setup() {
  if (process.env.GLEANER_TEST_REDIS_URL) return;
  const mode = process.env.GLEANER_TEST_REDIS_MODE;
  if (mode === 'cluster' || mode === 'sentinel') {
    // A Cluster or a Sentinel group instead of one server (pnpm test:redis-ha, redis-ha.mjs).
    const { startSuiteRedisHa } = await import('./redis-ha.mjs');
    const ha = await startSuiteRedisHa(mode);
    Object.assign(process.env, ha.env);
    /** @type {any} */ (globalThis).gleanerSuiteRedis = ha;
    return;
  }
  if (mode && mode !== 'server') throw new Error(`GLEANER_TEST_REDIS_MODE must be server, cluster or sentinel, not '${mode}'`);
  const redis = await startSuiteRedis();
  process.env.GLEANER_TEST_REDIS_URL = redis.url;
  /** @type {any} */ (globalThis).gleanerSuiteRedis = redis;
}

/** jest globalTeardown: stops the Redis that setup() started, if it started one. */
export async function teardown() {
  await /** @type {any} */ (globalThis).gleanerSuiteRedis?.stop();
}
