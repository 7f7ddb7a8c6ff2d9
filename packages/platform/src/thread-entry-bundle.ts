import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/**
 * Thread code is bundled once per process, in the thread that owns the pool, and handed to each
 * thread ready to run: our TypeScript (the entry and the workspace packages it imports) compiled
 * by esbuild into one ES module, installed packages left as imports of their files. A thread then
 * loads no TypeScript loader: with tsx registered in it, each thread also ran tsx's hooks thread
 * (another V8 isolate) and kept tsx and its transforms. Two idle threads took 73 MB that way
 * against 19 MB for two plain ones; the parser's benchmark peaked at 618-631 MB with bundled
 * parse threads against 624-675 MB (three runs each; the peak moves by ±25 MB with timing).
 */
const bundles = new Map<string, Promise<string>>();

/** The module a thread runs for `entry`, as a data: URL; built on first use, then shared. */
export function threadEntryModule(entry: URL): Promise<string> {
  let bundle = bundles.get(entry.href);
  if (!bundle) {
    bundle = bundleEntry(entry);
    bundles.set(entry.href, bundle);
    // A failed build (a broken entry) is not kept: the next pool tries again.
    bundle.catch(() => bundles.delete(entry.href));
  }
  return bundle;
}

/** Tells esbuild's own resolution from the plugin's (which asks esbuild to resolve). */
const RESOLVING = Symbol('resolving');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

/**
 * Installed packages stay outside the bundle, imported by the absolute URL of the file Node would
 * load (a data: URL module cannot resolve bare names): they run as published, and one copy of
 * each is loaded, not one per bundle. Our own modules are bundled, each with `import.meta.url`
 * set to its source file, so paths built from it (a thread's own thread, createRequire) still
 * point where they do when run from source. The packages that our lazily imported modules import
 * are loaded when the thread starts (esbuild hoists their imports): a parse thread loads sharp and
 * @napi-rs/canvas at once, not with its first PDF or image (the idle parser process measured
 * 198-203 MB either way).
 */
const ownCodeBundled: Plugin = {
  name: 'gleaner-own-code-bundled',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: RESOLVING });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // Node's built-in modules.
      if (resolved.external) return { path: args.path, external: true };
      // Workspace packages resolve through their symlink to packages/*: bundled.
      if (!resolved.path.includes(NODE_MODULES)) return { path: resolved.path };
      return { path: pathToFileURL(resolved.path).href, external: true };
    });
    build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

/** Builds in progress: esbuild's service process (~13 MB) is stopped when none is left. */
let building = 0;

async function bundleEntry(entry: URL): Promise<string> {
  // Loaded here only: threads import this module (with the pool's) but never bundle.
  const esbuild = await import('esbuild');
  building++;
  const built = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    plugins: [ownCodeBundled],
    logLevel: 'silent',
    legalComments: 'none',
  }).finally(() => {
    // Otherwise it stays until the process ends; a later build starts another.
    if (--building === 0) void esbuild.stop();
  });
  return `data:text/javascript;base64,${Buffer.from(built.outputFiles[0].contents).toString('base64')}`;
}
