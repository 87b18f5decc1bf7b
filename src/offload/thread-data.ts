import { workerData } from 'node:worker_threads';

/** The workerData a thread was started with, whether it runs as TypeScript (bootstrapped) or JavaScript. */
export function threadData<T>(): T {
  const g = globalThis as { __stemforgeWorkerData?: unknown };
  return (g.__stemforgeWorkerData ?? workerData) as T;
}
