import type { JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { completedResults } from './outputs.ts';

export interface StemInput {
  fileName: string;
  durationSeconds: number;
  fileSizeBytes: number;
}

export interface StemOptions {
  outputType: 'VOCALS' | 'INSTRUMENTAL' | 'BOTH' | 'FOUR_STEMS' | 'SIX_STEMS';
  quality: 'FAST' | 'BALANCED' | 'BEST';
  outputFormat: 'MP3' | 'WAV' | 'FLAC';
  denoiseVocals?: boolean;
}

export function jobInput(row: JobRow): StemInput {
  const i = JSON.parse(row.input_json) as StemInput;
  return { fileName: i.fileName, durationSeconds: i.durationSeconds, fileSizeBytes: i.fileSizeBytes };
}

export function jobOptions(row: JobRow): StemOptions {
  return JSON.parse(row.options_json) as StemOptions;
}

export function publicOptions(row: JobRow) {
  const o = jobOptions(row);
  return { outputType: o.outputType, quality: o.quality, outputFormat: o.outputFormat };
}

/** JobDetail (GET /jobs/{id}) with freshly signed output URLs. */
export async function presentStemJob(row: JobRow, store: BlobStore) {
  const { audioMetadata, outputs } = await completedResults(row, store);
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    input: jobInput(row),
    options: publicOptions(row),
    audioMetadata,
    outputs,
    creditsCharged: row.credits_charged ?? 0,
    errorMessage: row.error_message,
    expiresAt: row.expires_at,
    metadata: row.metadata_json ? (JSON.parse(row.metadata_json) as Record<string, unknown>) : null,
  };
}

/** A list item: exactly the contract's fields. */
export function presentStemListItem(row: JobRow) {
  const input = jobInput(row);
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    input: { fileName: input.fileName, durationSeconds: input.durationSeconds },
    options: publicOptions(row),
    creditsCharged: row.credits_charged ?? 0,
    errorMessage: row.error_message,
  };
}
