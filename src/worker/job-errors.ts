export { PermanentJobError } from '../domain/permanent-job-error.ts';

/** The worker is shutting down: the attempt is handed back, not counted as a failure. */
export class ShutdownError extends Error {}

/** Readable reason for a job's errorMessage: the message, without stack or internal paths. */
export function readableError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\/[\w./-]*\/(data|tmp|work)\/[\w./-]*/g, '<file>').slice(0, 500) || 'unknown error';
}
