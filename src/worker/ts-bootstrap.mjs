// Worker-thread entry for TypeScript modules: installs tsx's loader in this thread, exposes the
// caller's workerData unwrapped, then loads the real entry module.
import { register } from 'tsx/esm/api';
import * as threads from 'node:worker_threads';

register();
const { entry, data } = threads.workerData;
globalThis.__stemforgeWorkerData = data;
await import(entry);
