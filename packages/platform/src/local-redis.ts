import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SetupError } from './lifecycle.js';
import type { Logger } from './logger.js';

/** Where `pnpm start`'s own Redis keeps its data: beside the secret file, in the checkout's `.gleaner/`. */
export const LOCAL_REDIS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../.gleaner/redis');

export interface LocalRedis {
  /** Stops it (its data is kept: AOF in `dir`). */
  stop(): Promise<void>;
}

/** Whether something accepts connections on host:port (a Redis, or anything else in its way). */
function accepts(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

function onPath(program: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * The embedded default for one machine (`pnpm start` with REDIS_URL unset): when nothing answers
 * at 127.0.0.1:6379, starts redis-server there, bound to loopback, durable (AOF, as
 * infra/redis.conf: `appendfsync everysec`, no eviction) with its data in `dir`, and says so in one
 * log line. On 6379, the default REDIS_URL, so everything else started on this machine without
 * REDIS_URL (the operator command line, a service started alone) finds it. It runs under a shell
 * that stops it when this process's end closes the shell's stdin, however the process ends, and in
 * a process group of its own, so a Ctrl-C reaches the services (which shut down in order and then
 * stop it) and not Redis first. Null when something already answers there: that is used as is.
 * No redis-server installed: a SetupError naming what to install.
 */
export async function startLocalRedisUnlessAnswering(logger: Logger, dir = LOCAL_REDIS_DIR, port = 6379): Promise<LocalRedis | null> {
  const host = '127.0.0.1';
  if (await accepts(port, host)) return null;
  const where = `redis://${host}:${port}`;
  const redisServer = onPath('redis-server');
  if (!redisServer) {
    throw new SetupError(`no Redis answers at ${where} and redis-server is not installed: install it (Debian: apt-get install redis-server) or set REDIS_URL to a Redis`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const args = ['--port', String(port), '--bind', host, '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction', '--logfile', 'redis.log'];
  const stopsWithStdin = 'redis-server "$@" & pid=$!; read -r _; kill $pid; wait $pid';
  const child = spawn('sh', ['-c', stopsWithStdin, 'gleaner-redis', ...args], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.stdin!.end();
    await exited;
  };
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await accepts(port, host)) {
      logger.info(`no Redis answered at ${where} and REDIS_URL is not set: started redis-server there for this machine, data in ${path.relative(process.cwd(), dir) || dir} (it stops with this process; set REDIS_URL to use another Redis)`);
      return { stop };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  await stop();
  throw new SetupError(`redis-server did not start at ${where}; see ${path.join(dir, 'redis.log')}`);
}
