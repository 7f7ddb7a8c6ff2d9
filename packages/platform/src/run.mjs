// Starts a program of ours written in TypeScript without a module loader in the process:
//   node packages/platform/src/run.mjs services/<service>/src/main.ts [arguments...]
// The entry and the modules of ours it imports are bundled by esbuild (own-code-bundle.mjs) and
// run as one ES module; installed packages load as usual. The bundle is kept and reused while its
// source files are unchanged (own-code-module.mjs). Run by tsx instead (`node --import tsx
// main.ts`), a service also keeps tsx, its transforms and its hooks thread (another V8 isolate):
// ~40 MB more for each service process (the idle parser worker: 215 MB against 175-177 MB, or
// 183-186 MB when the bundle always carried its source map).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFailure, ownCodeModuleUrl } from './own-code-module.mjs';

const [entry] = process.argv.splice(2, 1);
if (!entry) {
  process.stderr.write('usage: node packages/platform/src/run.mjs <entry.ts> [arguments...]\n');
  process.exit(2);
}
const file = path.resolve(entry);
// The program sees itself as the script that was run: argv[1] is its file, its arguments follow.
process.argv[1] = file;
// Source maps cost the process ~10 MB (Node then reads every installed package's maps too), so
// they are on in development only; `--enable-source-maps` turns them on anywhere. Without them a
// frame names a line of the bundle's file, which stays readable (esbuild marks each source file).
if (process.env.NODE_ENV === 'development') process.setSourceMapsEnabled(true);

let moduleUrl;
try {
  // The map is built only when something will read it.
  moduleUrl = await ownCodeModuleUrl(pathToFileURL(file), { sourceMap: process.sourceMapsEnabled });
} catch (error) {
  process.stderr.write(`${entry} could not be built: ${buildFailure(error)}\n`);
  process.exit(1);
}
await import(moduleUrl);
