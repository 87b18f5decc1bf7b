import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { deleteFinishedJob } from '../../store/job-edits.ts';
import { findAccountJob } from '../../store/jobs.ts';
import { deletePlayerSettings } from '../../store/player-settings.ts';
import { deleteJobFiles } from '../outputs/job-files.ts';

/**
 * Deletes an account's finished job and what it stored (outputs, peaks, a downloaded source). A
 * PENDING or PROCESSING job is refused (409 JOB_STILL_RUNNING): cancelling first releases its
 * credits and stops its worker. The files go first, so a failure part way leaves a job that can be
 * deleted again rather than files nothing points at. Its ledger rows stay (the balance's history).
 */
export async function deleteJob(deps: Pick<JobDeps, 'db' | 'blobs'>, accountId: string, id: string): Promise<void> {
  const row = await findAccountJob(deps.db, accountId, null, id);
  if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
  if (row.status === 'PENDING' || row.status === 'PROCESSING') throw new ApiError('JOB_STILL_RUNNING');
  await deleteJobFiles(deps.blobs, row);
  if (!(await deleteFinishedJob(deps.db, accountId, id))) throw new ApiError('JOB_STILL_RUNNING');
  await deletePlayerSettings(deps.db, id);
}
