// Starts a program of ours written in TypeScript without a module loader in the process:
//   node packages/platform/src/run.mjs services/<service>/src/main.ts [arguments...]
// The entry and the modules of ours it imports are bundled by esbuild (own-code-bundle.mjs) and
// run as one ES module; installed packages load as usual. Run by tsx instead (`node --import tsx
// main.ts`), a service also keeps tsx, its transforms and its hooks thread (another V8 isolate):
// ~40 MB more for each service process (the idle parser worker: 215 MB against 175-177 MB, or
// 183-186 MB when the bundle always carried its source map).
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleOwnCode, dataUrlModule } from './own-code-bundle.mjs';

const [entry] = process.argv.splice(2, 1);
if (!entry) {
  process.stderr.write('usage: node packages/platform/src/run.mjs <entry.ts> [arguments...]\n');
  process.exit(2);
}
const file = path.resolve(entry);
const entryUrl = pathToFileURL(file);
// The program sees itself as the script that was run: argv[1] is its file, its arguments follow.
process.argv[1] = file;
// Source maps cost the process ~10 MB (Node then reads every installed package's maps too), so
// they are on in development only; `--enable-source-maps` turns them on anywhere. Without them a
// frame names a line of the bundle's file, which stays readable (esbuild marks each source file).
if (process.env.NODE_ENV === 'development') process.setSourceMapsEnabled(true);

let code;
try {
  // The map is built only when something will read it.
  code = await bundleOwnCode(entryUrl, { sourceMap: process.sourceMapsEnabled });
} catch (error) {
  // esbuild's report names the file, line and problem of each error.
  const errors = error?.errors?.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`);
  process.stderr.write(`${entry} could not be built: ${errors?.join('; ') ?? error?.message ?? error}\n`);
  process.exit(1);
}
await import(writtenModule(code) ?? dataUrlModule(code, entryUrl));

/**
 * The bundle as a file in a directory of this user's in the temporary directory, named by its
 * content (a restart of the same code reuses it; written under a temporary name and renamed, so
 * processes starting at once never read half a file). Stack traces get our source files' lines
 * only from a module loaded from a file: Node looks a frame's source map up by the frame's file
 * name, which a data: URL module named by `sourceURL` does not match. Null when no such directory
 * can be had (the program then runs from a data: URL, its traces giving lines of the bundle).
 */
function writtenModule(source) {
  try {
    const uid = process.getuid?.() ?? 'user';
    const dir = path.join(os.tmpdir(), `gleaner-run-${uid}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Only a directory this user owns and nobody else can write: another account could otherwise
    // swap the file between its writing and its loading.
    const stats = lstatSync(dir);
    if (!stats.isDirectory() || (process.getuid && stats.uid !== process.getuid()) || (stats.mode & 0o022) !== 0) return null;
    const name = `${path.basename(file).replace(/\.[cm]?ts$/, '')}-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.mjs`;
    const written = path.join(dir, name);
    const partial = `${written}.${process.pid}.tmp`;
    writeFileSync(partial, source, { mode: 0o600 });
    renameSync(partial, written);
    return pathToFileURL(written).href;
  } catch {
    return null;
  }
}
