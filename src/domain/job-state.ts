/**
 * The job state machine (all job kinds) lives in the store's guarded updates (`src/store/jobs.ts`):
 * PENDING -> PROCESSING (claim), PROCESSING -> PENDING (an internal retry after a transient failure;
 * the client keeps seeing progress), PROCESSING -> COMPLETED | FAILED (only while the worker still
 * holds the lease), COMPLETED | FAILED -> EXPIRED (retention). Each is one UPDATE whose WHERE clause
 * names the state it leaves, so a transition that is not allowed changes no row.
 */

/** Exponential backoff for internal retries: base, 4x base, 16x base ... capped at 10 minutes. */
export function retryDelayMs(attempt: number, baseMs: number): number {
  return Math.min(10 * 60_000, baseMs * 4 ** Math.max(0, attempt - 1));
}

export { STEMS_BY_OUTPUT_TYPE } from './vocabulary.ts';
