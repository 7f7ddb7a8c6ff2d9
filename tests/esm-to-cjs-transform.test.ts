import { describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';

/**
 * The test-only transformer that lets jsdom (CommonJS) require() ESM-only packages under jest.
 * On Node 20 jest loads such a file as CommonJS and needs it compiled; on Node >= 24.9 jest-runtime 30
 * loads it as ESM itself (`supportsStaticESM`), where compiled CommonJS fails with
 * "module is not defined" — the reason every jsdom suite once failed on Node 24.
 */
const transformer = createRequire(import.meta.url)('./support/esm-to-cjs-transform.cjs') as {
  process(source: string, filename: string, options: { supportsStaticESM: boolean }): { code: string };
  getCacheKey(source: string, filename: string, options: { supportsStaticESM: boolean; configString: string }): string;
};

const ESM = "import { a } from './a.js';\nexport const b = a + 1;\nexport default b;\n";
const FILE = '/x/node_modules/lru-cache/dist/esm/index.js';

describe('esm-to-cjs jest transformer', () => {
  it('compiles to CommonJS where jest loads the file as CommonJS (Node 20)', () => {
    const { code } = transformer.process(ESM, FILE, { supportsStaticESM: false });
    expect(code).toContain('require("./a.js")');
    expect(code).toMatch(/module\.exports/);
    expect(code).not.toMatch(/^\s*(import|export) /m);
  });

  it('passes the ES module through unchanged where jest loads ESM natively (Node >= 24.9)', () => {
    expect(transformer.process(ESM, FILE, { supportsStaticESM: true }).code).toBe(ESM);
  });

  it('keys cached output on the loading mode and the source, so neither run reuses the other’s output', () => {
    const key = (source: string, supportsStaticESM: boolean) => transformer.getCacheKey(source, FILE, { supportsStaticESM, configString: '{}' });
    expect(key(ESM, true)).not.toBe(key(ESM, false));
    expect(key(ESM, false)).not.toBe(key(`${ESM}\n`, false));
    expect(key(ESM, false)).toBe(key(ESM, false));
  });
});
