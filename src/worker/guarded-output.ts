import type { WorkerDeps } from './deps.ts';
import { deleteJobFiles } from '../jobs/outputs/job-files.ts';
import { findJob, renewLease, type JobRow } from '../store/jobs.ts';
import { ShutdownError } from './job-errors.ts';

/**
 * A job's files follow its row. A cancel (or a delete after it) takes the job from its worker, which
 * notices at its next heartbeat or progress report; until then the stage may still be writing
 * outputs. So every file a stage stores goes through this: the lease is checked (and renewed) before
 * the write, and again after it; a write that lost the job meanwhile is removed when no one else
 * holds the job (cancelled, failed or deleted), and the stage stops.
 */
export function guardedStoreFile(
  deps: Pick<WorkerDeps, 'db' | 'blobs'>,
  job: Pick<JobRow, 'id'>,
  owner: string,
  leaseMs: number,
): (key: string, localPath: string, contentType: string) => Promise<void> {
  const stillMine = () => renewLease(deps.db, job.id, owner, leaseMs);
  return async (key, localPath, contentType) => {
    if (!(await stillMine())) throw new ShutdownError('the job is no longer this worker’s (cancelled?)');
    await deps.blobs.putFile(key, localPath, { contentType });
    if (await stillMine()) return;
    if (await isAbandoned(deps, job.id)) await deps.blobs.delete(key);
    throw new ShutdownError('the job was taken from this worker while it stored a file (cancelled?)');
  };
}

/**
 * After a stage lost its job (handed back, or its completion found the job gone from it): when the
 * job was cancelled or deleted meanwhile, removes every file of it, so nothing a late write left
 * stays behind. A job another worker holds or completed keeps its files.
 */
export async function discardIfAbandoned(
  deps: Pick<WorkerDeps, 'db' | 'blobs'>,
  job: Pick<JobRow, 'id' | 'account_id' | 'source_key'>,
): Promise<boolean> {
  if (!(await isAbandoned(deps, job.id))) return false;
  const row = await findJob(deps.db, job.id);
  await deleteJobFiles(deps.blobs, row ?? job);
  return true;
}

/** No one runs the job any more and it has no outputs to keep: deleted, cancelled or failed. */
async function isAbandoned(deps: Pick<WorkerDeps, 'db'>, id: string): Promise<boolean> {
  const row = await findJob(deps.db, id);
  return !row || row.status === 'FAILED' || row.status === 'EXPIRED';
}
