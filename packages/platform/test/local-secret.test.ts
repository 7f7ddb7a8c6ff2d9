import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, jest } from '@jest/globals';
import Joi from 'joi';
import { commonEnvSchema, loadConfig, localSecret, type CommonConfig } from '../src/index.js';

const scratch = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'gleaner-secret-')), 'nested', 'secret');

describe('localSecret', () => {
  it('generates a secret once, readable by its owner only, and returns it again after', () => {
    const file = scratch();
    const first = localSecret(file);
    expect(first.created).toBe(true);
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(localSecret(file)).toEqual({ secret: first.secret, created: false });
  });

  it('gives every one of several processes starting at once the same secret', async () => {
    const file = scratch();
    const module = new URL('../src/local-secret.ts', import.meta.url).pathname;
    const script = `import { localSecret } from ${JSON.stringify(module)}; console.log(localSecret(${JSON.stringify(file)}).secret);`;
    const outputs = await Promise.all(
      Array.from({ length: 6 }, () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))));
        }),
      ),
    );
    // Every output in full on failure: six copies of the one secret the file holds.
    expect(outputs).toEqual(Array(6).fill(readFileSync(file, 'utf8').trim()));
  }, 60_000);

  it('refuses a file that holds no usable secret', () => {
    const file = scratch();
    localSecret(file);
    writeFileSync(file, 'short\n');
    expect(() => localSecret(file)).toThrow(/no usable secret/);
  });
});

/** What `run` returns and what it wrote to stderr (kept out of the test's output). */
function withStderrCaptured<T>(run: () => T): { result: T; written: string[] } {
  const written: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    return { result: run(), written };
  } finally {
    spy.mockRestore();
  }
}

describe('configuration', () => {
  const schema = Joi.object(commonEnvSchema);

  it('uses GLEANER_SECRET when set, in any mode', () => {
    const config = loadConfig<CommonConfig>(schema, { GLEANER_SECRET: 's'.repeat(32), GLEANER_SECRET_FILE: scratch() });
    expect(config.GLEANER_SECRET).toBe('s'.repeat(32));
  });

  it('falls back to the shared secret file when GLEANER_SECRET is unset, in production too', () => {
    const file = scratch();
    const [first, second] = withStderrCaptured(() => [
      loadConfig<CommonConfig>(schema, { NODE_ENV: 'production', GLEANER_SECRET_FILE: file }),
      loadConfig<CommonConfig>(schema, { NODE_ENV: 'development', GLEANER_SECRET_FILE: file }),
    ]).result;
    expect(first.GLEANER_SECRET).toBe(readFileSync(file, 'utf8').trim());
    expect(second.GLEANER_SECRET).toBe(first.GLEANER_SECRET);
  });

  it('says once, when it creates the file, that GLEANER_SECRET is not set; later loads say nothing', () => {
    const file = scratch();
    const first = withStderrCaptured(() => loadConfig<CommonConfig>(schema, { GLEANER_SECRET_FILE: file }));
    expect(first.written).toEqual([expect.stringContaining(`GLEANER_SECRET is not set: generated a secret in ${file}`)]);
    const later = withStderrCaptured(() => [1, 2].map(() => loadConfig<CommonConfig>(schema, { GLEANER_SECRET_FILE: file })));
    expect(later.written).toEqual([]);
  });

  it('still refuses a GLEANER_SECRET that is too short', () => {
    expect(() => loadConfig(schema, { GLEANER_SECRET: 'short' })).toThrow(/GLEANER_SECRET/);
  });
});
