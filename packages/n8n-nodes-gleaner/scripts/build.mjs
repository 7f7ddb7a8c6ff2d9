// Builds the publishable `dist/`: what `n8n-node build` does (clean, compile, copy icons) with two
// differences this package needs:
// - the nodes use the Gleaner client (`@gleaner/client/core`, a devDependency) and a community node
//   may have no runtime dependencies, so esbuild bundles each node and credential listed in
//   package.json's `n8n` field into one CommonJS file; only `n8n-workflow` (the peer dependency n8n
//   provides) and Node's built-ins stay `require()`s. tsc type-checks the sources first.
// - it copies the codex files (`nodes/**/*.node.json`) and writes `dist/package.json`
//   `{"type": "commonjs"}`: the package root is `"type": "module"` so that the workspace's ESM test
//   runner compiles the TypeScript sources as ESM, but n8n require()s the CommonJS built here, and
//   Node decides a `.js` file's format from the nearest package.json.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const ASSET = /\.(svg|png)$|\.node\.json$/;

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)])));
  return nested.flat();
}

await rm(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const typecheck = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (typecheck.status !== 0) process.exit(typecheck.status ?? 1);

// `dist/nodes/X/X.node.js` ← `nodes/X/X.node.ts`: the entry points are exactly what n8n loads.
const { n8n } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const entryPoints = [...n8n.nodes, ...n8n.credentials].map((file) => path.join(root, file.replace(/^dist\//, '').replace(/\.js$/, '.ts')));
await build({
  entryPoints,
  outbase: root,
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['n8n-workflow'],
  sourcemap: true,
  logLevel: 'warning',
});

for (const folder of ['icons', 'nodes', 'credentials']) {
  for (const file of (await filesUnder(path.join(root, folder))).filter((f) => ASSET.test(f))) {
    const target = path.join(dist, path.relative(root, file));
    await mkdir(path.dirname(target), { recursive: true });
    await cp(file, target);
  }
}
await writeFile(path.join(dist, 'package.json'), '{\n  "type": "commonjs"\n}\n');
console.log(`built ${path.relative(process.cwd(), dist) || 'dist'}`);
