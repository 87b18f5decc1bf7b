import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import type { JobKind } from '../../domain/job-kinds.ts';
import { JOB_CANCELLED_CODE } from '../../domain/vocabulary.ts';
import { releaseHold } from '../../store/credits.ts';
import { markCancelled } from '../../store/job-edits.ts';
import { findAccountJob, type JobRow } from '../../store/jobs.ts';
import { recordJobEvent } from '../events/outbox.ts';

export const CANCELLED_MESSAGE = 'The job was cancelled at your request; its credits were released.';

/** Whether a job ended because its owner cancelled it. */
export function wasCancelled(row: Pick<JobRow, 'status' | 'error_code'>): boolean {
  return row.status === 'FAILED' && row.error_code === JOB_CANCELLED_CODE;
}

/**
 * Cancels an account's PENDING or PROCESSING job (`kind` limits it to one resource's kind; null:
 * any). In one transaction the job becomes FAILED with the phase `cancelled`, its held credits are
 * released and `job.failed` is written to the outbox (a receiver waiting for the job's end hears
 * of it). A worker running it stops at its next heartbeat or progress report, finding the job no
 * longer its own. Cancelling a cancelled job answers it again; any other finished job is 409
 * JOB_NOT_CANCELLABLE. Returns the job as it is now.
 */
export async function cancelJob(
  deps: Pick<JobDeps, 'db' | 'config' | 'metrics' | 'blobs'>,
  accountId: string,
  kind: JobKind | null,
  id: string,
): Promise<JobRow> {
  const row = await findAccountJob(deps.db, accountId, kind, id);
  if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
  const now = new Date();
  const released = await deps.db.transaction().execute(async (tx) => {
    const expiresAt = new Date(now.getTime() + deps.config.retentionSeconds * 1000).toISOString();
    if (!(await markCancelled(tx, id, { now: now.toISOString(), expiresAt, message: CANCELLED_MESSAGE }))) return null;
    const seconds = await releaseHold(tx, accountId, id, 'job cancelled');
    await recordJobEvent(tx, deps.blobs, id, 'job.failed');
    return seconds;
  });
  const moved = released !== null;
  if (moved) deps.metrics.creditsReleased.inc({ reason: 'cancelled' }, released);
  const after = (await findAccountJob(deps.db, accountId, kind, id)) ?? row;
  if (moved || wasCancelled(after)) return after;
  throw new ApiError(
    'JOB_NOT_CANCELLABLE',
    `The job is ${after.status.toLowerCase()}: only a pending or processing job can be cancelled.`,
    { status: after.status },
  );
}
