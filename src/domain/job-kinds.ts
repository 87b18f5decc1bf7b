/**
 * The job kinds, declared once: this catalog is the list. Everything else a kind needs is a map
 * keyed by it that the compiler requires to be complete: its stored payloads (`JOB_PAYLOADS`,
 * `src/jobs/payloads.ts`), how it is shown (`JOB_PRESENTERS`, `src/jobs/present/job-presenters.ts`) and one
 * handler per stage (`STAGE_HANDLERS`, `src/worker/stage-handlers.ts`, checked again at start-up).
 * Free of zod and Node so that the dashboard's bundle reads the labels from here too.
 *
 * Stages: `download` (fetching from video and track sites: slow, network-bound, own concurrency so
 * a slow site never idles the separation workers) and `inference` (CPU/GPU-bound separation and
 * denoising), run in the order listed. Concurrency is per stage and per process
 * (`WORKER_CONCURRENCY`, `DOWNLOAD_CONCURRENCY`).
 */
export const STAGES = ['download', 'inference'] as const;
export type Stage = (typeof STAGES)[number];

export interface JobKindDeclaration {
  /** What the dashboard calls it. */
  label: string;
  stages: readonly Stage[];
  /** Attempts of one stage before the job fails; `JOB_MAX_ATTEMPTS` lowers it for every kind. */
  attempts: number;
  /** Attempt timeout in milliseconds for one stage run. */
  timeoutMs: number;
  /**
   * Whether it writes `job.completed` / `job.failed` webhook events. The contract names
   * stem-separation and video jobs; track jobs are separations too. Denoise jobs do not: the
   * contract's payload has no denoise shape, and denoise clients poll `/denoise-jobs/{id}`.
   */
  emitsEvents: boolean;
}

const SIX_HOURS = 6 * 3600_000;

export const JOB_KIND_CATALOG = {
  stem: { label: 'Stems', stages: ['inference'], attempts: 3, timeoutMs: SIX_HOURS, emitsEvents: true },
  video: { label: 'Video', stages: ['download', 'inference'], attempts: 3, timeoutMs: SIX_HOURS, emitsEvents: true },
  track: { label: 'Track', stages: ['download', 'inference'], attempts: 3, timeoutMs: SIX_HOURS, emitsEvents: true },
  denoise: { label: 'Voice cleaning', stages: ['inference'], attempts: 3, timeoutMs: SIX_HOURS, emitsEvents: false },
} as const satisfies Record<string, JobKindDeclaration>;

export type JobKind = keyof typeof JOB_KIND_CATALOG;
export const JOB_KINDS = Object.keys(JOB_KIND_CATALOG) as [JobKind, ...JobKind[]];

/** Every stage a kind runs, as the exact `${kind}:${stage}` pairs handlers are keyed by. */
export type StageType = { [K in JobKind]: `${K}:${(typeof JOB_KIND_CATALOG)[K]['stages'][number]}` }[JobKind];
/** The kind of a stage type: `KindOf<'video:download'>` is `'video'`. */
export type KindOf<T extends StageType> = T extends `${infer K extends JobKind}:${string}` ? K : never;

export function kindSpec(kind: JobKind): JobKindDeclaration {
  return JOB_KIND_CATALOG[kind];
}

/** Kinds that have work in a stage. */
export function kindsInStage(stage: Stage): JobKind[] {
  return JOB_KINDS.filter((k) => kindSpec(k).stages.includes(stage));
}

/** Every (kind, stage) pair a worker runs. */
export function stageTypes(): StageType[] {
  return JOB_KINDS.flatMap((k) => kindSpec(k).stages.map((s) => `${k}:${s}` as StageType));
}
