// Jest transformer for ESM-only packages that CommonJS code (jsdom) require()s. Node 20.19+
// loads them natively, but jest's module loader does not, so tests compile them with esbuild.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const { code, map } = transformSync(source, { format: 'cjs', loader: 'js', target: 'node20', sourcefile: filename, sourcemap: 'external' });
    return { code, map };
  },
};
