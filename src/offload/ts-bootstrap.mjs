// Entry for TypeScript modules started as a worker thread or a child process: installs tsx's
// loader (loader hooks are inherited by neither; not needed where Node transforms TypeScript
// itself, --experimental-transform-types in NODE_OPTIONS, as in the image), then loads the real
// entry module. A thread gets its entry and data through workerData (the data is exposed
// unwrapped); a process gets its entry as the first argument.
import * as threads from 'node:worker_threads';

if (process.features.typescript !== 'transform') {
  const { register } = await import('tsx/esm/api');
  register();
}
if (threads.isMainThread) {
  await import(process.argv[2]);
} else {
  const { entry, data } = threads.workerData;
  globalThis.__stemforgeWorkerData = data;
  await import(entry);
}
