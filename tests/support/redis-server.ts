import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { answersPing, freePort } from './suite-redis.mjs';

export { freePort };

/**
 * A private redis-server (AOF on, so data survives a restart) that a test may stop and start
 * again on the same port, for outage tests that must never touch the shared Redis.
 */
export class DisposableRedis {
  private child: ChildProcess | null = null;
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'gleaner-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<DisposableRedis> {
    const r = new DisposableRedis(await freePort());
    await r.resume();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /**
   * AOF with `appendfsync always`: with `everysec`, Redis may put off writing its AOF buffer for up
   * to 2 s while a previous fsync is slow (a loaded CI machine), so an acknowledged write could be
   * lost to the SIGKILL these tests use, whatever the product does (seen once in CI).
   */
  async resume(): Promise<void> {
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir], { stdio: 'ignore' });
    for (let i = 0; i < 100; i++) {
      if (await answersPing(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
    this.child = null;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
