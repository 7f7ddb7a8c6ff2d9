import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LLM_PROVIDERS } from '@gleaner/store';
import { cleanEnvironment, inPrivateNetwork, privateNetworkProblem } from './support/private-network.js';
import { REPO_ROOT } from './support/processes.js';
import { freePort } from './support/redis-server.js';

const run = promisify(execFile);

/** `pnpm --silent gleaner …` as users run it: exit code, stdout and stderr. */
async function gleaner(args: string[], env: Record<string, string>, wrap = (command: string, args: string[]) => ({ command, args })) {
  const { command, args: argv } = wrap('pnpm', ['--silent', 'gleaner', ...args]);
  try {
    const { stdout, stderr } = await run(command, argv, { cwd: REPO_ROOT, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('the gleaner command line', () => {
  it('given no command, prints its usage on stderr and exits 2', async () => {
    const result = await gleaner([], cleanEnvironment());
    expect(result).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/^usage: gleaner <command>\n/) });
    expect(result.stderr).toContain('scrape <url>');
  });

  it('--help prints the usage on stdout, exit 0, naming every LLM provider the store takes', async () => {
    const result = await gleaner(['--help'], cleanEnvironment());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`--provider ${LLM_PROVIDERS.join('|')} --key`);
  });

  it('--help loads neither Redis, joi, the document libraries nor a TypeScript loader (it starts bundled)', async () => {
    // Every CommonJS package the process loads, listed on exit (ioredis, joi, sharp, canvas and tsx's loader are CommonJS).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gleaner-cli-loads-'));
    const listing = path.join(dir, 'loaded.txt');
    writeFileSync(
      path.join(dir, 'list-loads.cjs'),
      `const Module = require('module'); const seen = new Set(); const load = Module._load;
       Module._load = function (request, parent, isMain) { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(?!.*node_modules)/.exec(Module._resolveFilename(request, parent, isMain)); if (m) seen.add(m[1]); return load.apply(this, arguments); };
       process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(listing)}, [...seen].join('\\n')));`,
    );
    try {
      const result = await gleaner(['--help'], cleanEnvironment({ NODE_OPTIONS: `--require ${path.join(dir, 'list-loads.cjs')}` }));
      expect(result.code).toBe(0);
      const loaded = readFileSync(listing, 'utf8').split('\n');
      for (const heavy of ['ioredis', 'joi', 'bullmq', 'sharp', '@napi-rs/canvas', 'pdfjs-dist', 'tsx', 'winston']) expect({ heavy, loaded: loaded.includes(heavy) }).toEqual({ heavy, loaded: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the gateway URL it tried and GLEANER_URL when no gateway answers, exit 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await gleaner(['scrape', 'https://example.com/'], cleanEnvironment({ GLEANER_URL: url, GLEANER_API_KEY: 'any' }));
    expect(result).toEqual({ code: 1, stdout: '', stderr: `error: cannot reach the gateway at ${url} (ECONNREFUSED): is it running? GLEANER_URL sets its address (default http://127.0.0.1:8080)\n` });
  });

  it('without GLEANER_URL, names the default address it tried', async () => {
    expect(privateNetworkProblem()).toBeNull();
    // Where nothing can answer on 8080, whatever runs on this machine.
    const result = await gleaner(['parse', 'https://example.com/a.pdf'], cleanEnvironment({ GLEANER_API_KEY: 'any' }), inPrivateNetwork);
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'error: cannot reach the gateway at http://127.0.0.1:8080 (ECONNREFUSED): is it running? GLEANER_URL sets its address (default http://127.0.0.1:8080)\n' });
  });
});
