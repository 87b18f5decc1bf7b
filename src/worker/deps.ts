import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { Engines } from '../engines/engines.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * What the workers may need from the composition root (`src/runtime.ts` satisfies it). Each
 * function names the part it uses with `Pick<WorkerDeps, ...>`.
 */
export interface WorkerDeps {
  config: Config;
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  log: Logger;
  metrics: Metrics;
  /** The audio engines, created on first use. */
  engines(): Engines;
}
