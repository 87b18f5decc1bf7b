import type { JobKind, KindOf, Stage, StageType } from '../domain/job-kinds.ts';
import type { ProgressPhase } from '../domain/vocabulary.ts';
import type { AudioMetadataValue } from '../contract/common.ts';
import type { StoredOutputs } from '../jobs/outputs/outputs.ts';
import type { JobInputOf } from '../jobs/payloads.ts';
import type { TypedJobOf } from '../jobs/read-job.ts';
import type { WorkerDeps } from './deps.ts';

/**
 * The seam between the runner (`run-job.ts`: claims, leases, retries, the terminal transaction)
 * and the work of one stage, shaped like BullMQ's `Worker<Data, Result>`: a handler receives its
 * job parsed and typed by kind and returns typed results; the runner alone reads and writes the
 * job's row, JSON included.
 */
export interface StageContext<out K extends JobKind = JobKind> {
  /** The job as stored, its payloads parsed against its kind's schemas (`readJob`). */
  job: TypedJobOf<K>;
  /** A private working directory for this attempt, removed afterwards. */
  workDir: string;
  signal: AbortSignal;
  /**
   * Reports progress 0-100 and, when it changes, the phase (`PROGRESS_PHASES`). Progress is kept
   * monotonic and written when it gains a whole percent; a new phase is written at once.
   */
  progress(percent: number, phase?: ProgressPhase): void;
  /**
   * Says the stage's work up to `units` (its own units, rising: a separation's segments) is kept by
   * a checkpoint that a later run resumes from, so a death after it is not at the place of the one
   * before (JOB_MAX_CRASHES counts deaths without work kept in between).
   */
  keepWork(units: number): void;
  /** Where this stage keeps checkpoints across attempts and deaths (removed when the job ends). */
  checkpointDir: string;
  /**
   * Settles the job's credits to its input's measured length, for an input the API never measured
   * (an upload PUT straight to S3): the hold becomes exactly that length and the row records it,
   * with the size of the file measured.
   * Resolves to the credits now required; rejects with a PermanentJobError (INSUFFICIENT_CREDITS)
   * when the balance cannot cover it. The runner writes the row (`settle-measured.ts`).
   */
  settleMeasuredInput(durationSeconds: number, fileSizeBytes: number): Promise<number>;
  /**
   * Stores a file of the job (an output, a downloaded source) in the blob store, only while the job
   * is still this worker's: checked before and after the write; a write that raced a cancel is
   * removed and the stage stops (ShutdownError). The runner's (`guarded-output.ts`); stages never
   * write the job's files to the store themselves.
   */
  storeFile(key: string, localPath: string, contentType: string): Promise<void>;
}

/** The job is done: its outputs, its BPM/key, and the seconds to charge. */
export interface StageCompleted {
  type: 'completed';
  outputs: StoredOutputs;
  audioMetadata: AudioMetadataValue | null;
  chargeSeconds: number;
}

/** The job has more stages: its source as stored now, its updated input, and the stage to queue. */
export interface StageNext<K extends JobKind> {
  type: 'next-stage';
  nextStage: Stage;
  input: JobInputOf<K>;
  /** The stored source, its measured duration and the credits it costs (what the next stage charges). */
  source: { key: string; durationSeconds: number; credits: number };
}

export type StageResult<K extends JobKind> = StageCompleted | StageNext<K>;

/** What a stage handler may use: the runner alone writes the job's row. */
export type StageDeps = Pick<WorkerDeps, 'config' | 'blobs' | 'log' | 'engines' | 'metrics'>;

export type StageHandler<K extends JobKind> = (deps: StageDeps, ctx: StageContext<K>) => Promise<StageResult<K>>;

/** One handler per exact `${kind}:${stage}` of the catalog, each typed by its kind. */
export type StageHandlers = { [T in StageType]: StageHandler<KindOf<T>> };
