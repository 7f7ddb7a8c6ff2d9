// Jest transformer for ESM-only packages that CommonJS code (jsdom) require()s. Node 20.19+
// loads them natively, but jest's module loader does not, so tests compile them with esbuild.
//
// Where jest itself loads ES modules natively (jest-runtime 30 on Node >= 24.9 reports
// `supportsStaticESM`), a file it asks us to transform is loaded as ESM: compiling it to CommonJS
// would then fail at import ("module is not defined"), so it is passed through unchanged.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version: esbuildVersion } = require('esbuild');

// Without its own cache key jest keys a result on the input file and config only, so output cached
// by an earlier version of this transformer would outlive a change to it.
const OWN_SOURCE = readFileSync(__filename);

module.exports = {
  process(source, filename, options) {
    if (options && options.supportsStaticESM) return { code: source };
    const { code, map } = transformSync(source, { format: 'cjs', loader: 'js', target: 'node20', sourcefile: filename, sourcemap: 'external' });
    return { code, map };
  },

  getCacheKey(source, filename, options) {
    return createHash('sha1')
      .update(OWN_SOURCE)
      .update(`\0${esbuildVersion}\0${filename}\0${options.configString}\0${options.supportsStaticESM ? 'esm' : 'cjs'}\0`)
      .update(source)
      .digest('hex');
  },
};
