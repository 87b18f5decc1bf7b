import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { StageContext, StageDeps } from './stage.ts';
import type { JobKind } from '../domain/job-kinds.ts';
import type { JobRow } from '../store/jobs.ts';
import { ApiError } from '../domain/errors.ts';
import { copyWithLimit } from '../storage/limited-copy.ts';
import { BlobTooLargeError } from '../storage/errors.ts';
import { measureAudioOrReject } from '../uploads/measure.ts';
import { PermanentJobError } from './job-errors.ts';

/**
 * Fetches a job's input into `inputPath` and, when it was never measured (an upload PUT straight to
 * S3 in scale-out: the API saw no byte of it, so the row has no duration), measures it here, before
 * anything is separated or charged, on the same local copy the separation will read (so replacing
 * the stored object afterwards changes nothing): the size limit while downloading, ffprobe (is it
 * audio at all?) and a measuring decode (`measureAudioOrReject`, the same path every upload through
 * the API takes), then the duration limits, then the credits settled to the decoded length
 * (`ctx.settleMeasuredInput`). Any refusal fails the job at once with the catalogued code the API
 * would have answered (UNSUPPORTED_FORMAT, AUDIO_NOT_DECODABLE, FILE_TOO_LARGE, AUDIO_TOO_LONG,
 * AUDIO_TOO_SHORT, INSUFFICIENT_CREDITS); the runner then releases the hold, and a file refused for
 * what it is is deleted from the store at once. The size recorded is the one downloaded (a client
 * may have PUT again since the job was created). Returns the row with its duration and credits as
 * they stand now; `limitInputToBill` still runs after this.
 */
export async function fetchMeasuredInput<K extends JobKind>(
  deps: Pick<StageDeps, 'config' | 'blobs' | 'log'>,
  ctx: Pick<StageContext<K>, 'job' | 'signal' | 'settleMeasuredInput'>,
  inputPath: string,
): Promise<JobRow> {
  const job = ctx.job.row;
  if (!job.source_key) throw new PermanentJobError('the job has no input file');
  if (job.duration_seconds !== null) {
    await deps.blobs.downloadToFile(job.source_key, inputPath);
    return job;
  }
  let measured: { seconds: number; bytes: number };
  try {
    measured = await downloadAndMeasure(deps, ctx.signal, job.source_key, inputPath);
  } catch (err) {
    // A file no job can use (not audio, too long or short, too large) goes at once, not a retention
    // period later: a direct upload must not be a way to keep anything in the bucket.
    if (err instanceof PermanentJobError) await deps.blobs.delete(job.source_key);
    throw err;
  }
  const credits = await ctx.settleMeasuredInput(measured.seconds, measured.bytes);
  deps.log.info({ jobId: job.id, durationSeconds: measured.seconds, credits }, 'direct upload measured');
  return { ...job, duration_seconds: measured.seconds, credits_required: credits };
}

/** The download with the size limit, the measuring decode and the duration limits; refusals are permanent. */
async function downloadAndMeasure(
  deps: Pick<StageDeps, 'config' | 'blobs' | 'log'>,
  signal: AbortSignal,
  key: string,
  inputPath: string,
): Promise<{ seconds: number; bytes: number }> {
  const { limits } = deps.config;
  const bytes = await downloadWithLimit(deps, key, inputPath, limits.maxFileSizeBytes);
  let seconds: number;
  try {
    seconds = (await measureAudioOrReject(deps, inputPath, { signal })).durationSeconds;
  } catch (err) {
    if (err instanceof ApiError) throw new PermanentJobError(err.message, err.code);
    throw err;
  }
  if (seconds > limits.maxDurationSeconds) {
    throw new PermanentJobError(
      `The audio lasts more than ${limits.maxDurationSeconds} s, the maximum; nothing was processed or charged.`,
      'AUDIO_TOO_LONG',
    );
  }
  if (seconds < limits.minDurationSeconds) {
    throw new PermanentJobError(
      `The audio lasts ${seconds.toFixed(1)} s; the minimum is ${limits.minDurationSeconds} s.`,
      'AUDIO_TOO_SHORT',
    );
  }
  return { seconds, bytes };
}

/** Downloads a blob, refusing it once it passes `maxBytes` (an object replaced after the job's creation). */
async function downloadWithLimit(
  deps: Pick<StageDeps, 'blobs'>,
  key: string,
  localPath: string,
  maxBytes: number,
): Promise<number> {
  const body = await deps.blobs.createReadStream(key);
  try {
    return await copyWithLimit(body, createWriteStream(localPath), maxBytes);
  } catch (err) {
    await rm(localPath, { force: true });
    if (err instanceof BlobTooLargeError) {
      throw new PermanentJobError(
        `The file exceeds the maximum file size of ${Math.floor(maxBytes / (1024 * 1024))} MB.`,
        'FILE_TOO_LARGE',
      );
    }
    throw err;
  } finally {
    body.destroy();
  }
}
