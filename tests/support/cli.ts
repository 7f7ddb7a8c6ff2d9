import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { REPO_ROOT } from './processes.js';

const run = promisify(execFile);

/** Runs the operator command line exactly as operators do (`pnpm --silent gleaner …`). */
export async function gleanerCli(args: string[], env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return run('pnpm', ['--silent', 'gleaner', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000 });
}

/** Creates an account and a key through the CLI and returns the key (the CLI's last line). */
export async function createKeyWithCli(account: string, env: Record<string, string>, scopes?: string): Promise<string> {
  await gleanerCli(['accounts', 'create', account], env);
  const { stdout } = await gleanerCli(['keys', 'create', '--account', account, ...(scopes ? ['--scopes', scopes] : [])], env);
  return stdout.trim().split('\n').at(-1)!;
}
