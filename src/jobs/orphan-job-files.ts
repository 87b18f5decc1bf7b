import type { BlobStore } from '../storage/blob-store.ts';
import { existingJobIds } from '../store/job-edits.ts';
import type { Db } from '../store/schema.ts';

/** Job ids are checked against the database this many at a time. */
const BATCH = 500;
const JOB_ID = /^job_[0-9A-Za-z]+$/;

/**
 * Removes the output folders (`jobs/<id>/`) of jobs that no longer exist: files a worker wrote
 * after its job was cancelled and deleted (it checks before and after each write, but a crash
 * between the write and its check leaves one), or that a failed deletion left. A job's row exists
 * before anything of it is stored, so a folder without a row is never a job's work in progress.
 * Returns the ids whose folders were removed.
 */
export async function sweepOrphanJobFolders(deps: { db: Db; blobs: BlobStore }): Promise<string[]> {
  const ids = (await deps.blobs.listFolders('jobs/')).filter((id) => JOB_ID.test(id));
  const removed: string[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const existing = await existingJobIds(deps.db, batch);
    for (const id of batch) {
      if (existing.has(id)) continue;
      await deps.blobs.deletePrefix(`jobs/${id}/`);
      removed.push(id);
    }
  }
  return removed;
}
