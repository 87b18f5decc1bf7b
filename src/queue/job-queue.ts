import type { JobKind } from '../store/schema.ts';
import type { Stage } from '../domain/job-kinds.ts';

/**
 * The job-queue port. The database row is the source of truth for a job's state; the queue only
 * decides which worker runs which job next. Adapters: `db-queue.ts` (embedded default: workers
 * claim runnable rows from the database) and `bullmq-queue.ts` (scale-out: BullMQ on Redis carries
 * job ids to worker processes; the worker still claims the row, so a duplicate message is harmless).
 */
export interface JobQueue {
  /** Announces that a job has work in a stage (new job, retry, or next stage). */
  enqueue(job: { id: string; kind: JobKind }, stage: Stage, delayMs?: number): Promise<void>;
  /** Starts workers for a stage; `run` is called with each job id to process. */
  consume(stage: Stage, concurrency: number, run: (jobId: string) => Promise<void>): void;
  /**
   * Resolves when an enqueue can be made now, else rejects within DEPENDENCY_TIMEOUT_SECONDS with
   * DependencyUnavailableError. Only adapters on another service have it (BullMQ: a Redis PING);
   * the database queue's enqueue is the job's own row.
   */
  probe?(): Promise<void>;
  /** Stops taking work and waits for running handlers. */
  close(): Promise<void>;
}
