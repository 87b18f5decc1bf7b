import type { JobRow } from '../../store/jobs.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { completedResults } from '../outputs/outputs.ts';
import { presentProgress } from './present-progress.ts';
import { readJobOf, readMetadata, type TypedJobOf } from '../read-job.ts';

/** The contract's `input` of a separation job (`durationSeconds` is what the job is billed for). */
export function publicInput(job: TypedJobOf<'stem' | 'video' | 'track'>) {
  const { fileName, billedSeconds, fileSizeBytes } = job.input;
  return { fileName, durationSeconds: billedSeconds, fileSizeBytes };
}

export function publicOptions(job: TypedJobOf<'stem' | 'video' | 'track'>) {
  const { outputType, quality, outputFormat } = job.options;
  return { outputType, quality, outputFormat };
}

/** JobDetail (GET /jobs/{id}) with freshly signed output URLs. */
export async function presentStemJob(row: JobRow, blobs: BlobStore) {
  const job = readJobOf(row, 'stem');
  const { audioMetadata, outputs } = await completedResults(row, blobs);
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    input: publicInput(job),
    options: publicOptions(job),
    audioMetadata,
    outputs,
    creditsCharged: row.credits_charged ?? 0,
    errorMessage: row.error_message,
    ...presentProgress(row),
    expiresAt: row.expires_at,
    metadata: readMetadata(row),
  };
}

/** A list item: exactly the contract's fields. */
export function presentStemListItem(row: JobRow) {
  const job = readJobOf(row, 'stem');
  const input = publicInput(job);
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    input: { fileName: input.fileName, durationSeconds: input.durationSeconds },
    options: publicOptions(job),
    creditsCharged: row.credits_charged ?? 0,
    errorMessage: row.error_message,
  };
}
