import { describe, expect, it, jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

type Loaded = { format?: string; source?: Uint8Array | string; shortCircuit?: boolean };
type LoadHook = (url: string, context: { format?: string }, nextLoad: (url: string, context: { format?: string }) => Promise<Loaded>) => Promise<Loaded>;

// A string, not a literal: the hooks module is plain JavaScript without type declarations.
const hooksUrl: string = new URL('../src/vendor-modules-hooks.mjs', import.meta.url).href;
const { load } = (await import(hooksUrl)) as { load: LoadHook };

const require = createRequire(import.meta.url);
/** An ES module of an installed package (tsx's own API entry), and a CommonJS one. */
const vendorEsm = path.join(path.dirname(require.resolve('tsx/package.json')), 'dist/esm/api/index.mjs');
const vendorCjs = require.resolve('joi');

describe('vendor-modules-hooks load', () => {
  it("loads an installed package's ES module as published, without the next (tsx) hook", async () => {
    const next = jest.fn(async (_url: string, _context: { format?: string }): Promise<Loaded> => ({ format: 'module', source: 'transformed' }));
    const loaded = await load(pathToFileURL(vendorEsm).href, { format: 'module' }, next);
    expect(next).not.toHaveBeenCalled();
    expect(loaded.format).toBe('module');
    expect(loaded.shortCircuit).toBe(true);
    expect(Buffer.from(loaded.source as Uint8Array).equals(readFileSync(vendorEsm))).toBe(true);
  });

  it('passes our own TypeScript and CommonJS packages on to the next hook', async () => {
    const next = jest.fn(async (_url: string, _context: { format?: string }): Promise<Loaded> => ({ format: 'commonjs', source: 'from next' }));
    const ours = new URL('../src/thread-pool.ts', import.meta.url).href;
    expect(await load(ours, {}, next)).toEqual({ format: 'commonjs', source: 'from next' });
    expect(await load(pathToFileURL(vendorCjs).href, { format: 'commonjs' }, next)).toEqual({ format: 'commonjs', source: 'from next' });
    expect(await load('node:fs', {}, next)).toEqual({ format: 'commonjs', source: 'from next' });
    expect(next.mock.calls.map((call) => call[0])).toEqual([ours, pathToFileURL(vendorCjs).href, 'node:fs']);
  });
});
