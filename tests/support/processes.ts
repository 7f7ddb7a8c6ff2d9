import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when a line matching `pattern` has been printed (stdout or stderr). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * What `settles` resolves to, or `fallback` if it has not settled within `timeoutMs`. The timer is
 * cleared either way: a pending one would keep jest's worker alive after the file's tests.
 */
export async function settledWithin<T, F>(settles: Promise<T>, timeoutMs: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([settles, new Promise<F>((resolve) => (timer = setTimeout(() => resolve(fallback), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Starts a command as a real child process with its own environment, capturing its output. */
export function startProcess(command: string, args: string[], env: Record<string, string>, cwd = REPO_ROOT): ServiceProcess {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let buffer = '';
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString();
    for (const w of [...waiters]) {
      const m = w.pattern.exec(buffer);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m[0]);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => buffer,
    waitFor(pattern, timeoutMs = 60_000) {
      const m = pattern.exec(buffer);
      if (m) return Promise.resolve(m[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in output:\n${buffer.slice(-3000)}`)), timeoutMs);
        // 'close', not 'exit': output still in the pipe when the process exits is read first.
        child.once('close', (code) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code}) before printing ${pattern}:\n${buffer.slice(-3000)}`));
        });
        waiters.push({ pattern, resolve: (line) => { clearTimeout(timer); resolve(line); } });
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        // The whole process group: `pnpm start` runs node under a pnpm wrapper.
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
      await settledWithin(exited, 15_000, undefined);
    },
  };
}

/** The JSON lines a process printed (lifecycle lines and log lines share the shape). */
export function jsonLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What starts a program of ours (`node packages/platform/src/run.mjs <entry.ts>`), from the repository root. */
export const RUN_PROGRAM = 'packages/platform/src/run.mjs';

/** A service started the way operators do: `node packages/platform/src/run.mjs services/<name>/src/main.ts`. */
export function startService(name: string, env: Record<string, string>): ServiceProcess {
  return startProcess(process.execPath, [RUN_PROGRAM, `services/${name}/src/main.ts`], env);
}

export interface GroupMember {
  pid: number;
  /** The parent's pid. */
  ppid: number;
  /** Linux process state letter (R, S, D, Z …). */
  state: string;
  command: string;
}

/**
 * The processes of a process group that still run (zombies excluded), read from Linux /proc. A
 * child started by startProcess leads its own group (`detached`), so this lists everything it
 * started: `pnpm start` is pnpm, possibly a shell, and the node process that runs the system.
 */
export function processGroupMembers(pgid: number): GroupMember[] {
  const members: GroupMember[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
      const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid || state === 'Z') continue;
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      members.push({ pid: Number(entry), ppid: Number(ppid), state, command });
    } catch {
      // gone between the listing and the read
    }
  }
  return members;
}
