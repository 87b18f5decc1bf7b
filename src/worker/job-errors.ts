import { scrubInternals } from '../domain/client-message.ts';

/**
 * A failure that retrying cannot fix (the input is not audio, the video is private, the track is
 * too long): the job fails at once instead of spending its retries.
 */
export class PermanentJobError extends Error {}

/** The worker is shutting down: the attempt is handed back, not counted as a failure. */
export class ShutdownError extends Error {}

/** Readable reason for a job's errorMessage: the message, without stack, server paths or storage keys. */
export function readableError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return scrubInternals(message).slice(0, 500) || 'unknown error';
}
