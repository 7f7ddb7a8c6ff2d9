// Module hooks for worker threads: installed packages' ES modules are loaded exactly as published.
// tsx rewrites every ES module that contains `import(` (its CommonJS interop) and attaches a
// fine-grained source map, which Node then parses and keeps; for pdf.js that cost ~190 MB of
// resident memory per thread, against ~40 MB for the library itself. Our own TypeScript, and
// CommonJS packages, still go through tsx. Registered after tsx, so this hook runs first.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) {
    const path = fileURLToPath(url);
    const esm = path.endsWith('.mjs') || (path.endsWith('.js') && context.format === 'module');
    if (esm && path.includes('/node_modules/')) return { format: 'module', source: await readFile(path), shortCircuit: true };
  }
  return nextLoad(url, context);
}
