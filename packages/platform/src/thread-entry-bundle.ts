import { bundleOwnCode, dataUrlModule } from './own-code-bundle.mjs';

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

function bundleEntry(entry: URL): Promise<string> {
  return bundleOwnCode(entry).then((code) => dataUrlModule(code, entry));
}
