// A program of ours as a module Node can import with no loader: bundled (own-code-bundle.mjs),
// written to a file, and reused while the files it was built from are unchanged. Plain
// JavaScript, because run.mjs imports it before anything can load TypeScript.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleOwnCodeWithInputs, dataUrlModule } from './own-code-bundle.mjs';

/**
 * Not our source, but a change to it changes what a bundle should hold: pnpm rewrites this file
 * at every install, and a bundle names installed packages by their paths.
 */
const INSTALL_STATE = fileURLToPath(new URL('../../../node_modules/.modules.yaml', import.meta.url));

/**
 * The URL to import for `entry`: a bundle written earlier when none of the files it was built from
 * changed since (size and modification time; checking them takes a few milliseconds, where
 * building takes 0.3-0.5 s and loads esbuild), else a new bundle. A file in a directory of this
 * user's in the temporary directory, named by its content; a data: URL when no such directory can
 * be had (then built every time).
 * @param {URL} entry
 * @param {{ sourceMap?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function ownCodeModuleUrl(entry, { sourceMap = false } = {}) {
  const dir = privateDirectory();
  const name = path.basename(fileURLToPath(entry)).replace(/\.[cm]?ts$/, '');
  // One manifest per entry, build options and Node major (the bundle targets it).
  const manifest = dir && path.join(dir, `${name}-${shortHash(`${entry.href}\n${sourceMap}\n${process.versions.node.split('.')[0]}`)}.json`);
  const cached = manifest && bundleStillCurrent(manifest);
  if (cached) return pathToFileURL(cached).href;
  const { code, inputs } = await bundleOwnCodeWithInputs(entry, { sourceMap });
  const written = dir && writeBundle(dir, name, code);
  if (!written) return dataUrlModule(code, entry);
  try {
    writeAtomically(manifest, JSON.stringify({ bundle: written, inputs: [...inputs, INSTALL_STATE].map((file) => [file, fingerprint(file)]) }));
  } catch {
    // Only the next start's speed depends on it.
  }
  return pathToFileURL(written).href;
}

/**
 * One line for a build that failed: esbuild's report names the file, line and problem of each
 * error (its own message spans several lines).
 * @param {any} error
 * @returns {string}
 */
export function buildFailure(error) {
  const errors = error?.errors?.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`);
  return errors?.join('; ') ?? String(error?.message ?? error).split('\n')[0];
}

/** The bundle a manifest names, when it and every file it was built from are as they were. */
function bundleStillCurrent(manifest) {
  try {
    const { bundle, inputs } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (!inputs.every(([file, seen]) => fingerprint(file) === seen)) return null;
    statSync(bundle);
    return bundle;
  } catch {
    return null;
  }
}

function fingerprint(file) {
  try {
    const stats = statSync(file);
    return `${stats.size}:${stats.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function shortHash(text) {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * A directory only this user can write (another account could otherwise swap a bundle between
 * its writing and its loading), or null.
 */
function privateDirectory() {
  try {
    const uid = process.getuid?.() ?? 'user';
    const dir = path.join(os.tmpdir(), `gleaner-run-${uid}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid()) || (stats.mode & 0o022) !== 0) return null;
    return dir;
  } catch {
    return null;
  }
}

/**
 * The bundle as a file named by its content (a restart of the same code reuses it). Stack traces
 * get our source files' lines only from a module loaded from a file: Node looks a frame's source
 * map up by the frame's file name, which a data: URL module named by `sourceURL` does not match.
 */
function writeBundle(dir, name, code) {
  try {
    const written = path.join(dir, `${name}-${shortHash(code)}.mjs`);
    writeAtomically(written, code);
    return written;
  } catch {
    return null;
  }
}

/** Written under a temporary name and renamed: processes starting at once never read half a file. */
function writeAtomically(file, text) {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, text, { mode: 0o600 });
  renameSync(partial, file);
}
