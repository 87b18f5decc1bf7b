import { Readable } from 'node:stream';
import { z } from 'zod';
import { ChordSegment, type JobAnalysisValue } from '../../contract/analysis.ts';
import { ApiError } from '../../domain/errors.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { BlobNotFoundError } from '../../storage/errors.ts';
import type { JobRow } from '../../store/jobs.ts';
import { readAudioMetadata } from '../read-job.ts';

/**
 * The beats, downbeats and chords of a finished job, stored as one JSON blob beside its outputs
 * (`jobs/<id>/analysis.json`): a 4-minute song's is a few tens of kB, too long for the job's row
 * that every list reads, and retention deletes it with the outputs (`deleteJobFiles`).
 */
export const StoredAnalysis = z.object({
  beatsPerBar: z.number().int().nullable(),
  beats: z.array(z.number()),
  downbeats: z.array(z.number()),
  beatConfidence: z.number().nullable(),
  chords: z.array(ChordSegment),
});
export type StoredAnalysisValue = z.infer<typeof StoredAnalysis>;

export function analysisKey(jobId: string): string {
  return `jobs/${jobId}/analysis.json`;
}

export async function storeJobAnalysis(blobs: BlobStore, jobId: string, detail: StoredAnalysisValue): Promise<void> {
  const body = Buffer.from(JSON.stringify(StoredAnalysis.parse(detail)));
  await blobs.put(analysisKey(jobId), Readable.from([body]), { contentType: 'application/json' });
}

/** The stored detail, or null for a job analysed before it was stored (or whose analysis failed). */
async function readStoredAnalysis(blobs: BlobStore, jobId: string): Promise<StoredAnalysisValue | null> {
  let stream: Readable;
  try {
    stream = await blobs.createReadStream(analysisKey(jobId));
  } catch (err) {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  }
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  const parsed = StoredAnalysis.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  return parsed.success ? parsed.data : null;
}

/**
 * `GET /v1/jobs/{id}/analysis` of a stem, video or track job: its `audioMetadata` and the stored
 * detail. 409 before the job completed (or when it failed), 410 once retention removed its outputs;
 * a job completed before the detail existed answers its tempo and key with the rest null.
 */
export async function presentJobAnalysis(blobs: BlobStore, row: JobRow): Promise<JobAnalysisValue> {
  if (row.status === 'EXPIRED') throw new ApiError('OUTPUT_EXPIRED');
  if (row.status !== 'COMPLETED') throw new ApiError('JOB_NOT_COMPLETED');
  const meta = readAudioMetadata(row);
  const detail = await readStoredAnalysis(blobs, row.id);
  return {
    jobId: row.id,
    bpm: meta?.bpm ?? null,
    tempoConfidence: meta?.tempoConfidence ?? null,
    key: meta?.key ?? null,
    keyConfidence: meta?.keyConfidence ?? null,
    beatsPerBar: detail?.beatsPerBar ?? null,
    beats: detail?.beats ?? null,
    downbeats: detail?.downbeats ?? null,
    beatConfidence: detail?.beatConfidence ?? null,
    chords: detail?.chords ?? null,
  };
}
