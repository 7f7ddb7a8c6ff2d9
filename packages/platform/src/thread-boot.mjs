// Worker-thread bootstrap: threads do not inherit the tsx loader of the main thread, so register
// it here before importing the TypeScript task module named in workerData. Packages' ES modules
// bypass tsx (see vendor-modules-hooks.mjs); hooks registered later run first.
import { register as registerTsx } from 'tsx/esm/api';
import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

registerTsx();
register('./vendor-modules-hooks.mjs', import.meta.url);
await import(workerData.entry);
