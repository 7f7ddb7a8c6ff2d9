// Bundling of our TypeScript into one ES module, for code that runs without a module loader: the
// services' main threads (run.mjs) and pool threads (thread-entry-bundle.ts). Plain JavaScript,
// because run.mjs imports it before anything can load TypeScript.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Tells esbuild's own resolution from the plugin's (which asks esbuild to resolve). */
const RESOLVING = Symbol('resolving');
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
/** A pattern, not the plain string: this module's own source must not match it when it is bundled. */
const IMPORT_META_URL = /\bimport\.meta\.url\b/g;

/**
 * Installed packages stay outside the bundle, imported by the absolute URL of the file Node would
 * load (a data: URL module cannot resolve bare names): they run as published, and one copy of
 * each is loaded, not one per bundle. Our own modules are bundled, each with `import.meta.url`
 * set to its source file, so paths built from it (a thread's own thread, createRequire) still
 * point where they do when run from source. The packages that our lazily imported modules import
 * are loaded when the bundle starts (esbuild hoists their imports): a parse thread loads sharp and
 * @napi-rs/canvas at once, not with its first PDF or image (the idle parser process measured
 * 198-203 MB either way).
 * @type {import('esbuild').Plugin}
 */
const ownCodeBundled = {
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
      return { contents: source.replace(IMPORT_META_URL, JSON.stringify(pathToFileURL(args.path).href)), loader: /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js' };
    });
  },
};

/** Builds in progress: esbuild's service process (~13 MB) is stopped when none is left. */
let building = 0;

/**
 * `entry` and the modules of ours it imports as the source text of one ES module. With
 * `sourceMap`, the module carries its source map (inline), so that with source maps enabled
 * stack traces give our source files' lines.
 * @param {URL} entry
 * @param {{ sourceMap?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function bundleOwnCode(entry, options = {}) {
  return (await bundleOwnCodeWithInputs(entry, options)).code;
}

/**
 * `bundleOwnCode`, and the absolute paths of the files of ours it read (for a cache to check).
 * @param {URL} entry
 * @param {{ sourceMap?: boolean }} [options]
 * @returns {Promise<{ code: string, inputs: string[] }>}
 */
export async function bundleOwnCodeWithInputs(entry, { sourceMap = false } = {}) {
  // Loaded here only: code that imports this module but never bundles does not load esbuild.
  const esbuild = await import('esbuild');
  building++;
  const workingDir = process.cwd();
  const built = await esbuild
    .build({
      entryPoints: [fileURLToPath(entry)],
      absWorkingDir: workingDir,
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      plugins: [ownCodeBundled],
      logLevel: 'silent',
      legalComments: 'none',
      sourcemap: sourceMap ? 'inline' : false,
      // The map's paths are relative to the working directory unless given a root.
      sourceRoot: sourceMap ? `${pathToFileURL(workingDir).href}/` : undefined,
    })
    .finally(() => {
      // Otherwise it stays until the process ends; a later build starts another.
      if (--building === 0) void esbuild.stop();
    });
  return { code: built.outputFiles[0].text, inputs: Object.keys(built.metafile.inputs).map((input) => path.resolve(workingDir, input)) };
}

/**
 * A bundle as a data: URL module. Stack traces name it `bundle:<entry's path>`, not by the whole
 * URL (hundreds of KB in every frame of a logged stack).
 * @param {string} code
 * @param {URL} entry
 * @returns {string}
 */
export function dataUrlModule(code, entry) {
  return `data:text/javascript;base64,${Buffer.from(`${code}\n//# sourceURL=bundle:${fileURLToPath(entry)}\n`).toString('base64')}`;
}
