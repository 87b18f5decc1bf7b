import type { JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { signOutputs } from './outputs.ts';

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

const parseOrNull = <T>(json: string | null): T | null => (json ? (JSON.parse(json) as T) : null);

/** JobDetail (GET /jobs/{id}) with freshly signed output URLs. */
export async function presentStemJob(row: JobRow, store: BlobStore) {
  return {
    id: row.id,
    status: row.status,
    progress: row.progress,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    input: jobInput(row),
    options: publicOptions(row),
    audioMetadata: row.status === 'COMPLETED' ? parseOrNull<{ bpm: number | null; key: string | null }>(row.audio_metadata_json) : null,
    outputs: row.status === 'COMPLETED' ? await signOutputs(store, row.outputs_json) : null,
    creditsCharged: row.credits_charged ?? 0,
    errorMessage: row.error_message,
    expiresAt: row.expires_at,
    metadata: parseOrNull<Record<string, unknown>>(row.metadata_json),
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
