// Builds the publishable package `gleaner-mcp` into dist/ (publish with `npm publish dist`):
// - esbuild bundles the entry points with our own workspace code (@gleaner/client is private and
//   unpublished); the MCP SDK and zod stay dependencies, installed by npm as usual;
// - dist/package.json is the published manifest: the bin for `npx gleaner-mcp`, the library
//   export, and exactly this package's runtime dependencies other than the workspace's own.
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = path.join(root, 'dist');
const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const dependencies = Object.fromEntries(Object.entries(manifest.dependencies).filter(([, version]) => !version.startsWith('workspace:')));

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
await build({
  entryPoints: { cli: path.join(root, 'src/cli.ts'), index: path.join(root, 'src/index.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // cli and index share their code through one chunk instead of each carrying a copy.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  target: 'node20',
  // Published dependencies (and their subpaths, e.g. @modelcontextprotocol/sdk/server/mcp.js) stay imports.
  external: Object.keys(dependencies).flatMap((name) => [name, `${name}/*`]),
  logLevel: 'warning',
});
await chmod(path.join(dist, 'cli.js'), 0o755);
await copyFile(path.join(root, 'README.md'), path.join(dist, 'README.md'));
await writeFile(
  path.join(dist, 'package.json'),
  `${JSON.stringify(
    {
      name: 'gleaner-mcp',
      version: manifest.version,
      description: 'MCP server for Gleaner: AI agents read web pages and documents (PDF, Word, images by OCR) as clean markdown.',
      keywords: ['mcp', 'model-context-protocol', 'gleaner', 'web-scraper', 'document-parser', 'markdown'],
      license: 'MIT',
      type: 'module',
      bin: { 'gleaner-mcp': 'cli.js' },
      exports: { '.': './index.js' },
      files: ['cli.js', 'index.js', 'chunks', 'README.md'],
      engines: { node: '>=20.19' },
      dependencies,
    },
    null,
    2,
  )}\n`,
);
console.log(`built ${path.relative(process.cwd(), dist) || 'dist'}`);
