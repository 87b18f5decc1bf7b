import { join } from 'node:path';
import { ApiError } from '../domain/errors.ts';
import { creditsForDuration } from '../domain/credits.ts';
import { extensionOf, INPUT_FORMATS, sanitizeFileName } from '../domain/formats.ts';
import { downloadAudio, type DownloadedAudio } from '../sources/ytdlp.ts';
import { YtdlpError, ytdlpErrorToApiError } from '../sources/ytdlp-errors.ts';
import { measureAudioOrReject } from '../uploads/measure.ts';
import { maxDurationFor, minutesText, type MediaSite } from '../jobs/media-metadata.ts';
import { readJob } from '../jobs/read-job.ts';
import type { StageContext, StageHandler, StageOutcome, StageDeps } from './run-job.ts';
import { PermanentJobError } from './job-errors.ts';
import { ProgressSpan } from './progress-span.ts';

/**
 * The download stage of video and track jobs (runs on the `download` worker pool, so a slow site
 * never holds an inference worker): yt-dlp fetches the audio into the attempt's work folder, a decode
 * measures it (`src/uploads/measure.ts`), the limits are applied to the real duration, and the file goes to storage as the
 * job's source. The job then moves to its inference stage with the measured duration, which is what
 * it will be charged (src/worker/media-inference-stage.ts).
 *
 * yt-dlp failures that are facts about the media (private, removed, geo-blocked, too long, live)
 * fail the job at once with the same message the create route would give; transient ones
 * (timeout, network, crash, unusable output) are plain errors, so the runner retries with backoff.
 */
export function downloadStage(site: MediaSite): StageHandler {
  return (deps, ctx) => runDownload(deps, ctx, site);
}

async function runDownload(deps: StageDeps, ctx: StageContext, site: MediaSite): Promise<StageOutcome> {
  const { job, workDir, signal } = ctx;
  const typed = readJob(job);
  if (typed.kind !== 'video' && typed.kind !== 'track')
    throw new PermanentJobError(`a ${typed.kind} job has no download stage`);
  const { input } = typed;
  const maxSeconds = maxDurationFor(deps, site);
  // yt-dlp reports no progress we read: the span creeps through the expected download time.
  const span = new ProgressSpan(ctx.progress);
  span.enter('downloading', 1, 4, 10_000);
  let downloaded: DownloadedAudio;
  try {
    downloaded = await downloadAudio(input.downloadUrl, join(workDir, 'download'), {
      ytdlpPath: deps.config.ytdlp.path,
      timeoutMs: deps.config.ytdlp.timeoutMs,
      signal,
      maxDurationSeconds: maxSeconds,
      maxFileSizeBytes: deps.config.limits.maxFileSizeBytes,
    });
  } catch (err) {
    throw jobErrorOf(deps, err, site, job.id);
  } finally {
    span.stop();
  }
  ctx.progress(4, 'downloading');

  let duration: number;
  try {
    duration = (await measureAudioOrReject(deps, downloaded.path, { maxSeconds, signal })).durationSeconds;
  } catch (err) {
    if (err instanceof ApiError)
      throw new PermanentJobError(`The downloaded ${site} has no usable audio: ${err.message}`, err.code);
    throw err;
  }
  if (duration > maxSeconds) {
    throw new PermanentJobError(
      `The ${site} is ${minutesText(duration)} long; the maximum is ${minutesText(maxSeconds)}.`,
      'AUDIO_TOO_LONG',
    );
  }
  const min = deps.config.limits.minDurationSeconds;
  if (duration < min)
    throw new PermanentJobError(
      `The ${site} lasts ${duration.toFixed(1)} s; the minimum is ${min} s.`,
      'AUDIO_TOO_SHORT',
    );

  const ext = extensionOf(downloaded.path);
  const key = `sources/${job.account_id}/${job.id}/source`;
  await deps.store.putFile(key, downloaded.path, { contentType: INPUT_FORMATS[ext] ?? 'application/octet-stream' });
  ctx.progress(5);

  const credits = creditsForDuration(duration);
  const title = 'videoTitle' in input ? input.videoTitle : (input.trackTitle ?? downloaded.info.title);
  const updated = {
    ...input,
    fileName: sanitizeFileName(ext ? `${title}.${ext}` : title),
    billedSeconds: credits,
    fileSizeBytes: downloaded.bytes,
    ...('videoTitle' in input
      ? { videoDuration: Math.round(duration) }
      : { trackDuration: Math.round(duration), trackTitle: title }),
  };
  return {
    type: 'next-stage',
    nextStage: 'inference',
    // credits_required becomes the real cost: what the detail reports and the inference stage charges.
    set: {
      source_key: key,
      duration_seconds: duration,
      credits_required: credits,
      input_json: JSON.stringify(updated),
    },
  };
}

function jobErrorOf(deps: Pick<StageDeps, 'log'>, err: unknown, site: MediaSite, jobId: string): Error {
  if (!(err instanceof YtdlpError)) return err instanceof Error ? err : new Error(String(err));
  deps.log.warn(
    { jobId, site, kind: err.kind, retryable: err.retryable, detail: err.detail },
    'yt-dlp download failed',
  );
  const { message, code } = ytdlpErrorToApiError(err, site);
  return err.retryable ? new Error(message) : new PermanentJobError(message, code);
}
