// Worker-thread bootstrap, plain JavaScript: the pool sends the thread its code as the first
// message (the entry module with our TypeScript already bundled, see thread-entry-bundle.ts) and
// the thread runs it. No module loader is registered in threads.
import { parentPort } from 'node:worker_threads';

const { load } = await new Promise((resolve) => parentPort.once('message', resolve));
await import(load);
