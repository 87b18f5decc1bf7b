import type { BlobStore } from '../../storage/blob-store.ts';
import type { JobRow } from '../../store/jobs.ts';

/**
 * Deletes what a job stored: its outputs, cached waveform peaks and analysis (everything under `jobs/<id>/`)
 * and a source it downloaded itself (`sources/`). An uploaded input belongs to its upload, which
 * other jobs may use too; the upload's own retention removes it.
 */
export async function deleteJobFiles(store: BlobStore, job: Pick<JobRow, 'id' | 'source_key'>): Promise<void> {
  await store.deletePrefix(`jobs/${job.id}/`);
  if (job.source_key?.startsWith('sources/')) await store.delete(job.source_key);
}
