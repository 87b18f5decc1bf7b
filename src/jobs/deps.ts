import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobQueue } from '../queue/job-queue.ts';
import type { ModelAvailability } from '../models/availability.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * What creating a job may need from the composition root (`src/runtime.ts` satisfies it). Each
 * function names the part it uses with `Pick<JobDeps, ...>`, so a caller or a test passes only
 * that.
 */
export interface JobDeps {
  config: Config;
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  log: Logger;
  /** Which optional models the processes that run jobs have (gates six stems and voice cleaning). */
  models: ModelAvailability;
  metrics: Metrics;
}
