import type { JobKind } from '../store/schema.ts';

/**
 * The typed job catalog: for each job kind, the worker pool (stage) that runs it, how many
 * attempts it gets and how long one attempt may take. Handlers are registered per kind in
 * `src/worker/start.ts`, and start-up fails when a kind has none (exhaustive by type too).
 *
 * Stages: `download` (fetching from video and track sites: slow, network-bound, own concurrency so
 * a slow site never idles the separation workers) and `inference` (CPU/GPU-bound separation and
 * denoising). A video or track job runs its download stage first, then its inference stage.
 */
export type Stage = 'download' | 'inference';

export interface JobKindSpec {
  stages: Stage[];
  /** Attempt timeout in milliseconds for one stage run. */
  timeoutMs: number;
}

export const JOB_CATALOG: Partial<Record<JobKind, JobKindSpec>> = {
  stem: { stages: ['inference'], timeoutMs: 6 * 3600_000 },
  video: { stages: ['download', 'inference'], timeoutMs: 6 * 3600_000 },
  track: { stages: ['download', 'inference'], timeoutMs: 6 * 3600_000 },
  denoise: { stages: ['inference'], timeoutMs: 6 * 3600_000 },
};

export const JOB_KINDS = Object.keys(JOB_CATALOG) as JobKind[];

export function kindSpec(kind: JobKind): JobKindSpec {
  const spec = JOB_CATALOG[kind];
  if (!spec) throw new Error(`job kind ${kind} is not in the job catalog`);
  return spec;
}

/** Kinds that have work in a stage. */
export function kindsInStage(stage: Stage): JobKind[] {
  return JOB_KINDS.filter((k) => kindSpec(k).stages.includes(stage));
}

/** Every (kind, stage) pair a worker must have a handler for. */
export function requiredHandlers(): string[] {
  return JOB_KINDS.flatMap((k) => kindSpec(k).stages.map((s) => `${k}:${s}`));
}
