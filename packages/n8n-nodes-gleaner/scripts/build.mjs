// Builds the publishable `dist/`: what `n8n-node build` does (clean, tsc, copy icons) plus the two
// things it does not do for this package:
// - copy the codex files (`nodes/**/*.node.json`), which tsc only emits when they are imported;
// - write `dist/package.json` `{"type": "commonjs"}`. The package root is `"type": "module"` so that
//   the workspace's ESM test runner compiles the TypeScript sources as ESM, but n8n require()s the
//   CommonJS that tsc emits here, and Node decides a `.js` file's format from the nearest package.json.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

for (const folder of ['icons', 'nodes', 'credentials']) {
  for (const file of (await filesUnder(path.join(root, folder))).filter((f) => ASSET.test(f))) {
    const target = path.join(dist, path.relative(root, file));
    await mkdir(path.dirname(target), { recursive: true });
    await cp(file, target);
  }
}
await writeFile(path.join(dist, 'package.json'), '{\n  "type": "commonjs"\n}\n');
console.log(`built ${path.relative(process.cwd(), dist) || 'dist'}`);
