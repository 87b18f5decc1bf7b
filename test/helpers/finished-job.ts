import { Readable } from 'node:stream';
import type { Runtime } from '../../src/runtime.ts';
import type { JobKind } from '../../src/store/schema.ts';
import { newId } from '../../src/domain/ids.ts';
import { insertJob, type JobRow } from '../../src/store/jobs.ts';
import { recordJobEvent } from '../../src/jobs/events/outbox.ts';
import { pendingJobRow } from './job-row.ts';

export interface FinishedJobOptions {
  kind?: JobKind;
  outcome: 'COMPLETED' | 'FAILED';
  input?: Record<string, unknown>;
  options?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Stored outputs to create (stem -> bytes); COMPLETED only. */
  outputs?: Record<string, Buffer>;
  errorMessage?: string;
}

const base = { fileName: 'song.wav', billedSeconds: 7, fileSizeBytes: 1_058_444 };
const media = { ...base, downloadUrl: 'https://example.com/media' };

/** A complete stored input per kind (the job catalog's schemas); `input` overrides fields. */
const DEFAULT_INPUTS: Record<JobKind, Record<string, unknown>> = {
  stem: base,
  video: {
    ...media,
    videoId: 'dQw4w9WgXcQ',
    videoTitle: 'A video',
    videoDuration: 7,
    videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
    videoThumbnail: 'https://i.ytimg.com/x.jpg',
    channelName: 'Chan',
  },
  track: {
    ...media,
    trackId: '1',
    trackTitle: 'A track',
    trackDuration: 7,
    trackDurationEstimated: false,
    trackArtwork: '',
    artistName: 'Art',
    trackUrl: 'https://soundcloud.com/a/b',
  },
  denoise: { ...base, declared: { durationSeconds: 7, fileSizeBytes: 1_058_444 } },
};

const DEFAULT_OPTIONS: Record<JobKind, Record<string, unknown>> = {
  stem: { outputType: 'VOCALS', quality: 'FAST', outputFormat: 'MP3', denoiseVocals: false },
  video: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
  track: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
  denoise: { outputFormat: 'MP3' },
};

/**
 * Commits a job's terminal state and its outbox rows in one transaction, as the worker's terminal
 * transaction does (run-job.ts), but without running a job: for dispatcher tests that need events
 * cheaply. Returns the job row and the number of deliveries written.
 */
export async function commitFinishedJob(
  rt: Runtime,
  accountId: string,
  o: FinishedJobOptions,
): Promise<{ job: JobRow; deliveries: number }> {
  const id = newId('job');
  const now = new Date();
  const stored: Record<string, { key: string; fileName: string; contentType: string }> = {};
  for (const stem of Object.keys(o.outputs ?? {})) {
    stored[stem] = { key: `jobs/${id}/${stem}.mp3`, fileName: `song-${stem}.mp3`, contentType: 'audio/mpeg' };
  }
  const kind = o.kind ?? 'stem';
  const job = pendingJobRow(accountId, {
    id,
    kind,
    status: o.outcome,
    progress: o.outcome === 'COMPLETED' ? 100 : 40,
    progress_phase: o.outcome === 'COMPLETED' ? 'completed' : 'failed',
    input_json: JSON.stringify({ ...DEFAULT_INPUTS[kind], ...o.input }),
    options_json: JSON.stringify({ ...DEFAULT_OPTIONS[kind], ...o.options }),
    metadata_json: o.metadata ? JSON.stringify(o.metadata) : null,
    source_key: `uploads/${id}.wav`,
    duration_seconds: 6.01,
    credits_required: 7,
    credits_charged: o.outcome === 'COMPLETED' ? 7 : 0,
    error_message: o.outcome === 'FAILED' ? (o.errorMessage ?? 'simulated failure') : null,
    error_code: o.outcome === 'FAILED' ? 'JOB_FAILED' : null,
    outputs_json: o.outcome === 'COMPLETED' && o.outputs ? JSON.stringify(stored) : null,
    attempts: 1,
    next_attempt_at: new Date(now.getTime() - 60_000).toISOString(),
    created_at: new Date(now.getTime() - 30_000).toISOString(),
    started_at: new Date(now.getTime() - 20_000).toISOString(),
    completed_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
  });
  const deliveries = await rt.db.transaction().execute(async (tx) => {
    await insertJob(tx, job);
    return recordJobEvent(tx, rt.blobs, id, o.outcome === 'COMPLETED' ? 'job.completed' : 'job.failed');
  });
  // Stored after the row, as a worker does: a folder of `jobs/` without its row is an orphan.
  for (const [stem, bytes] of Object.entries(o.outputs ?? {})) {
    await rt.blobs.put(stored[stem]!.key, Readable.from([bytes]), { contentType: 'audio/mpeg' });
  }
  return { job, deliveries };
}
