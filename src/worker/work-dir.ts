import type { JobRow } from '../store/jobs.ts';

/**
 * The private work folder of one run of a job's stage, under `<data>/work/`:
 * `<jobId>-<stage>-<attempt>-<crashes>`. A run after a crash keeps the attempt number but not the
 * crash count, so the folder a dead worker left is never the one the live lease owns, and the
 * orphan sweep (`src/startup-sweep.ts`) can remove it while the job runs again.
 */
export function workDirName(job: Pick<JobRow, 'id' | 'attempts' | 'crashes'>, stage: string): string {
  return `${job.id}-${stage}-${job.attempts}-${job.crashes}`;
}

/**
 * The parts of a work folder's name, or null for a name this service did not make. `crashes` is
 * null for a folder named before crashes were counted (`<jobId>-<stage>-<attempt>`).
 */
export function parseWorkDirName(
  name: string,
): { jobId: string; stage: string; attempts: number; crashes: number | null } | null {
  const m = /^(job_[0-9A-Za-z]+)-([a-z]+)-(\d+)(?:-(\d+))?$/.exec(name);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  return { jobId: m[1], stage: m[2], attempts: Number(m[3]), crashes: m[4] === undefined ? null : Number(m[4]) };
}

/**
 * Under the data folder: each job stage's checkpoints (`<jobId>-<stage>`), which outlive the
 * attempt's work folder so a retry or the run after a death resumes from them (docs/deploy.md,
 * "Long jobs and deaths"). Removed when the stage ends, or by the orphan sweep once the job is over.
 */
export const CHECKPOINTS_DIR = 'checkpoints';

export function checkpointDirName(jobId: string, stage: string): string {
  return `${jobId}-${stage}`;
}

/** The job of a checkpoint folder's name, or null for a name this service did not make. */
export function parseCheckpointDirName(name: string): { jobId: string; stage: string } | null {
  const m = /^(job_[0-9A-Za-z]+)-([a-z]+)$/.exec(name);
  return m?.[1] && m[2] ? { jobId: m[1], stage: m[2] } : null;
}
