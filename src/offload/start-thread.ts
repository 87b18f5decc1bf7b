import { Worker, type WorkerOptions } from 'node:worker_threads';

const bootstrap = new URL('./ts-bootstrap.mjs', import.meta.url);

/**
 * Starts a worker thread from a module URL. TypeScript sources (run through tsx, in development
 * and tests) start through a small bootstrap that installs tsx's loader inside the thread, since
 * loader hooks are not inherited by worker threads; compiled JavaScript starts as is.
 */
export function startThread(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, options);
  return new Worker(bootstrap, {
    ...options,
    workerData: { entry: moduleUrl.href, data: options.workerData },
  });
}
