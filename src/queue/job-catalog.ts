import { JOB_KINDS, type JobKind } from '../domain/vocabulary.ts';

/**
 * The typed job catalog: for each job kind, the stages it runs through, how many attempts a stage
 * gets and how long one attempt may take. Its payload schemas are `JOB_PAYLOADS`
 * (`src/jobs/payloads.ts`), read back through `readJob`. Handlers are keyed by the exact
 * `${kind}:${stage}` type (`StageType`), so a kind or stage added here without a handler fails to
 * compile (`src/worker/start.ts`).
 *
 * Stages: `download` (fetching from video and track sites: slow, network-bound, own concurrency so
 * a slow site never idles the separation workers) and `inference` (CPU/GPU-bound separation and
 * denoising). A video or track job runs its download stage first, then its inference stage.
 * Concurrency is per stage and per process (`WORKER_CONCURRENCY`, `DOWNLOAD_CONCURRENCY`).
 */
export const STAGES = ['download', 'inference'] as const;
export type Stage = (typeof STAGES)[number];

export interface JobKindSpec {
  stages: readonly Stage[];
  /** Attempts of one stage before the job fails; `JOB_MAX_ATTEMPTS` lowers it for every kind. */
  attempts: number;
  /** Attempt timeout in milliseconds for one stage run. */
  timeoutMs: number;
}

const SIX_HOURS = 6 * 3600_000;

export const JOB_CATALOG = {
  stem: { stages: ['inference'], attempts: 3, timeoutMs: SIX_HOURS },
  video: { stages: ['download', 'inference'], attempts: 3, timeoutMs: SIX_HOURS },
  track: { stages: ['download', 'inference'], attempts: 3, timeoutMs: SIX_HOURS },
  denoise: { stages: ['inference'], attempts: 3, timeoutMs: SIX_HOURS },
} as const satisfies Record<JobKind, JobKindSpec>;

/** Every stage a kind runs, as the exact `${kind}:${stage}` pairs handlers are keyed by. */
export type StageType = { [K in JobKind]: `${K}:${(typeof JOB_CATALOG)[K]['stages'][number]}` }[JobKind];

export function kindSpec(kind: JobKind): JobKindSpec {
  return JOB_CATALOG[kind];
}

/** Kinds that have work in a stage. */
export function kindsInStage(stage: Stage): JobKind[] {
  return JOB_KINDS.filter((k) => kindSpec(k).stages.includes(stage));
}

/** Every (kind, stage) pair a worker runs. */
export function stageTypes(): StageType[] {
  return JOB_KINDS.flatMap((k) => kindSpec(k).stages.map((s) => `${k}:${s}` as StageType));
}
