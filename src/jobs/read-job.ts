import type { z } from 'zod';
import type { JobKind } from '../domain/job-kinds.ts';
import type { JobRow } from '../store/jobs.ts';
import { JOB_PAYLOADS, type JobInputOf, type JobOptionsOf, StoredOutputsSchema } from './payloads.ts';
import { AudioMetadata, type AudioMetadataValue } from '../contract/common.ts';

/** A stored job with its payloads parsed and typed by its kind. */
export type TypedJobOf<K extends JobKind> = {
  [P in K]: { kind: P; row: JobRow; input: JobInputOf<P>; options: JobOptionsOf<P> };
}[K];
export type TypedJob = TypedJobOf<JobKind>;

/** Thrown when a stored payload does not match its kind's schema (a bug or a hand-edited row). */
export class StoredPayloadError extends Error {}

/** Parses a job row's stored payloads against its kind's schemas (`src/jobs/payloads.ts`). */
export function readJob(row: JobRow): TypedJob {
  const schemas = JOB_PAYLOADS[row.kind];
  const input = schemas.input.safeParse(JSON.parse(row.input_json));
  const options = schemas.options.safeParse(JSON.parse(row.options_json));
  if (!input.success || !options.success) {
    throw new StoredPayloadError(`job ${row.id} (${row.kind}) has a stored payload that does not match its kind`);
  }
  return { kind: row.kind, row, input: input.data, options: options.data } as TypedJob;
}

/** `readJob` for a row that must be of one kind (a stage handler's, say). */
export function readJobOf<K extends JobKind>(row: JobRow, kind: K): TypedJobOf<K> {
  const job = readJob(row);
  if (job.kind !== kind) throw new StoredPayloadError(`job ${row.id} is a ${job.kind} job, not ${kind}`);
  return job as TypedJobOf<K>;
}

/** The stored metadata object, or null. */
export function readMetadata(row: JobRow): Record<string, unknown> | null {
  if (!row.metadata_json) return null;
  const parsed: unknown = JSON.parse(row.metadata_json);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** The stored outputs of a job (blob key, file name, type per output), or null before it completed. */
export function readOutputs(row: JobRow): z.infer<typeof StoredOutputsSchema> | null {
  if (!row.outputs_json) return null;
  const parsed = StoredOutputsSchema.safeParse(JSON.parse(row.outputs_json));
  if (!parsed.success) throw new StoredPayloadError(`job ${row.id} has stored outputs that do not match their schema`);
  return parsed.data;
}

/** The BPM/key analysis of a COMPLETED job (null otherwise, or when none was stored). */
export function readAudioMetadata(row: JobRow): AudioMetadataValue | null {
  if (row.status !== 'COMPLETED' || !row.audio_metadata_json) return null;
  const parsed = AudioMetadata.safeParse(JSON.parse(row.audio_metadata_json));
  if (!parsed.success)
    throw new StoredPayloadError(`job ${row.id} has stored audio metadata that does not match its schema`);
  return parsed.data;
}
