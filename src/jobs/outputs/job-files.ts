import type { BlobStore } from '../../storage/blob-store.ts';
import type { JobRow } from '../../store/jobs.ts';

/**
 * Deletes what a job stored: its outputs, cached waveform peaks and analysis (everything under
 * `jobs/<id>/`), the source a video or track job downloaded (`sources/<account>/<id>/`, recorded in
 * `source_key` or not yet) and a source it fetched itself (`sources/`). An uploaded input belongs to
 * its upload, which other jobs may use too; the upload's own retention removes it.
 */
export async function deleteJobFiles(
  blobs: BlobStore,
  job: Pick<JobRow, 'id' | 'account_id' | 'source_key'>,
): Promise<void> {
  await blobs.deletePrefix(`jobs/${job.id}/`);
  await blobs.deletePrefix(`sources/${job.account_id}/${job.id}/`);
  if (job.source_key?.startsWith('sources/')) await blobs.delete(job.source_key);
}
