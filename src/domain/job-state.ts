import type { JobStatusValue } from '../store/schema.ts';

/**
 * The job state machine (all job kinds). PROCESSING -> PENDING is an internal retry after a
 * transient failure (the client keeps seeing progress; the job is FAILED only once retries are
 * exhausted). COMPLETED and FAILED jobs become EXPIRED when their retention ends.
 */
export const TRANSITIONS: Record<JobStatusValue, JobStatusValue[]> = {
  PENDING: ['PROCESSING', 'FAILED'],
  PROCESSING: ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'],
  COMPLETED: ['EXPIRED'],
  FAILED: ['EXPIRED'],
  EXPIRED: [],
};

export function canTransition(from: JobStatusValue, to: JobStatusValue): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Exponential backoff for internal retries: base, 4x base, 16x base ... capped at 10 minutes. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(10 * 60_000, baseMs * 4 ** Math.max(0, attempt - 1));
}

/** Stem names produced for each output type; keys of `outputs` (fullAudio is added for video and track jobs). */
export const STEMS_BY_OUTPUT_TYPE = {
  VOCALS: ['vocals'],
  INSTRUMENTAL: ['instrumental'],
  BOTH: ['vocals', 'instrumental'],
  FOUR_STEMS: ['vocals', 'drums', 'bass', 'other'],
  SIX_STEMS: ['vocals', 'drums', 'bass', 'other', 'piano', 'guitar'],
} as const;

export type OutputTypeValue = keyof typeof STEMS_BY_OUTPUT_TYPE;
export type StemName = (typeof STEMS_BY_OUTPUT_TYPE)[OutputTypeValue][number];
