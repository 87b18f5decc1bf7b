import { LONE_SURROGATE } from '../domain/safe-text.ts';
import { scrubInternals } from '../domain/client-message.ts';
import { PermanentJobError } from '../domain/permanent-job-error.ts';

export { PermanentJobError };

/** `errorDetails.code` for a failure: the permanent error's own, else a timeout or a plain failure. */
export function errorCodeOf(err: unknown): string {
  if (err instanceof PermanentJobError) return err.code;
  if (err instanceof JobTimeoutError) return 'JOB_TIMEOUT';
  return 'PROCESSING_FAILED';
}

/** An attempt ran past the job catalog's timeout. */
export class JobTimeoutError extends Error {}

/** The worker is shutting down: the attempt is handed back, not counted as a failure. */
export class ShutdownError extends Error {}

/**
 * Readable reason for a job's errorMessage: the message, without stack, server paths, storage keys
 * or characters text cannot hold (a tool's output may carry NUL, which PostgreSQL would refuse, and
 * so make the failure itself fail).
 */
export function readableError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const plain = message.replace(LONE_SURROGATE, '').replace(/[\p{Cc}\p{Cf}]+/gu, ' ');
  return scrubInternals(plain).slice(0, 500) || 'unknown error';
}
