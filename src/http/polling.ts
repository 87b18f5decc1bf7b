import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JobRow } from '../store/jobs.ts';

/** How long one ETag stays valid at most: a 304 must never leave a client with expired output URLs (1 h). */
const ETAG_WINDOW_MS = 30 * 60_000;

/**
 * Polling hints on a job read (docs/api-compat.md, "Polling"):
 * - `ETag` from the job's state (status, progress, phase, completion) and a 30-minute window, so
 *   `If-None-Match` answers 304 while nothing changed and a cached body's signed URLs, fresh for an
 *   hour when it was sent, are never handed on expired;
 * - `Retry-After` (seconds) while the job is queued or running: when a poll is worth making again.
 * Returns the body, or the sent 304 reply.
 */
export function pollingHints(request: FastifyRequest, reply: FastifyReply, row: JobRow, body: unknown): unknown {
  const window = Math.floor(Date.now() / ETAG_WINDOW_MS);
  const etag = `W/"${row.status}.${row.progress}.${row.progress_phase ?? ''}.${row.completed_at ?? ''}.${window}"`;
  reply.header('ETag', etag);
  reply.header('Cache-Control', 'private, no-cache');
  if (row.status === 'PENDING' || row.status === 'PROCESSING') {
    reply.header('Retry-After', String(retryAfterSeconds(row)));
  }
  const given = request.headers['if-none-match'];
  if (typeof given === 'string' && given.split(',').some((t) => t.trim() === etag)) {
    return reply.code(304).send();
  }
  return body;
}

/** About 1/30 of the audio's length, between 2 and 30 s: a 4-minute song is worth a look every 8 s. */
export function retryAfterSeconds(row: Pick<JobRow, 'duration_seconds' | 'status'>): number {
  if (row.status === 'PENDING') return 5;
  return Math.min(30, Math.max(2, Math.round((row.duration_seconds ?? 60) / 30)));
}
