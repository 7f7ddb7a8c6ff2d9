import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RUN = fileURLToPath(new URL('../src/run.mjs', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./fixtures/program.ts', import.meta.url));

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [RUN, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '', ...env } });
}

it('runs a TypeScript program and its modules without a loader, as if it were the script run', () => {
  const child = run([PROGRAM, 'one', '--two']);
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  const report = JSON.parse(child.stdout) as { argv: string[]; url: string; file: string; execArgv: string[]; helper: boolean };
  // argv[1] is the program's file, its own arguments follow; import.meta.url is its source file.
  expect(report).toEqual({ argv: [PROGRAM, 'one', '--two'], url: new URL('./fixtures/program.ts', import.meta.url).href, file: PROGRAM, execArgv: [], helper: true });
}, 40_000);

it("names the program's source lines in stack traces in development, a line of the bundle's file otherwise, never a data: URL", () => {
  const development = run([PROGRAM, 'throw'], { NODE_ENV: 'development' });
  expect(development.status).toBe(1);
  expect(development.stderr).toMatch(new RegExp(`failed on purpose: asked to\\n\\s+at fail \\(${PROGRAM.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:8:9\\)`));
  const production = run([PROGRAM, 'throw'], { NODE_ENV: 'production' });
  expect(production.status).toBe(1);
  expect(production.stderr).toMatch(/\n\s+at fail \(file:\/\/\/\S+\/gleaner-run-[^/]+\/program-[0-9a-f]{16}\.mjs:\d+:\d+\)/);
  for (const { stderr } of [development, production]) expect(stderr).not.toContain('data:');
}, 40_000);

it('fails with one line naming the file, line and problem of a program that cannot be built, and with usage without a program', () => {
  const broken = run([fileURLToPath(new URL('./fixtures/unbuildable-thread.ts', import.meta.url))]);
  expect(broken.status).toBe(1);
  expect(broken.stdout).toBe('');
  expect(broken.stderr.trim().split('\n')).toHaveLength(1);
  expect(broken.stderr).toMatch(/unbuildable-thread\.ts could not be built: \S*unbuildable-thread\.ts:\d+:\d+: .*gleaner-no-such-package/);
  const bare = run([]);
  expect({ status: bare.status, stderr: bare.stderr }).toEqual({ status: 2, stderr: 'usage: node packages/platform/src/run.mjs <entry.ts> [arguments...]\n' });
}, 40_000);

it('reuses the bundle while the files it was built from are unchanged, and rebuilds after an edit', () => {
  // A program of its own, in a scratch folder inside this package so that it resolves like ours.
  const dir = mkdtempSync(path.join(fileURLToPath(new URL('./fixtures/', import.meta.url)), 'cached-'));
  const entry = path.join(dir, 'main.ts');
  // A build writes the entry's manifest (what it was built from) beside the bundle; a reuse does not.
  const manifests = path.join(os.tmpdir(), `gleaner-run-${process.getuid?.() ?? 'user'}`);
  const manifestWrites = () => readdirSync(manifests).filter((f) => /^main-[0-9a-f]{16}\.json$/.test(f)).map((f) => `${f}@${statSync(path.join(manifests, f)).mtimeMs}`).join();
  try {
    writeFileSync(entry, "import { word } from './word.js';\nconsole.log(word);\n");
    writeFileSync(path.join(dir, 'word.ts'), "export const word: string = 'first';\n");
    let seen = existsSync(manifests) ? manifestWrites() : '';
    const runIt = () => {
      const child = run([entry]);
      const now = manifestWrites();
      const built = now !== seen;
      seen = now;
      return { out: child.stdout.trim(), status: child.status, built };
    };
    expect(runIt()).toEqual({ out: 'first', status: 0, built: true });
    expect(runIt()).toEqual({ out: 'first', status: 0, built: false });
    writeFileSync(path.join(dir, 'word.ts'), "export const word: string = 'second';\n");
    expect(runIt()).toEqual({ out: 'second', status: 0, built: true });
    expect(runIt()).toEqual({ out: 'second', status: 0, built: false });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
