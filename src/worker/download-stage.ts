import { join } from 'node:path';
import { ApiError } from '../domain/errors.ts';
import { creditsForDuration } from '../domain/credits.ts';
import { extensionOf, INPUT_FORMATS, sanitizeFileName } from '../domain/formats.ts';
import { downloadAudio, type DownloadedAudio } from '../sources/ytdlp.ts';
import { YtdlpError, ytdlpErrorToApiError } from '../sources/ytdlp-errors.ts';
import { measureAudioOrReject } from '../uploads/measure.ts';
import { maxDurationFor, minutesText, type MediaSite } from '../jobs/create/media-metadata.ts';
import type { JobInputOf } from '../jobs/payloads.ts';
import type { StageContext, StageDeps, StageHandler, StageNext } from './stage.ts';
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
export function downloadStage<K extends MediaSite>(media: MediaFields<K>): StageHandler<K> {
  return (deps, ctx) => runDownload(deps, ctx, media);
}

/** What differs between a video and a track once downloaded: the title, and where the duration goes. */
export interface MediaFields<K extends MediaSite> {
  site: K;
  /** The title the file is named after; `reported` is what the site said at download. */
  title(input: JobInputOf<K>, reported: string): string;
  /** The input once downloaded: what is billed now, the title, and the measured duration (whole seconds). */
  measured(input: JobInputOf<K>, m: Measured): JobInputOf<K>;
}

interface Measured {
  billed: { fileName: string; billedSeconds: number; fileSizeBytes: number };
  title: string;
  seconds: number;
}

export const VIDEO_DOWNLOAD: MediaFields<'video'> = {
  site: 'video',
  title: (input) => input.videoTitle,
  measured: (input, m) => ({ ...input, ...m.billed, videoDuration: m.seconds }),
};

export const TRACK_DOWNLOAD: MediaFields<'track'> = {
  site: 'track',
  title: (input, reported) => input.trackTitle ?? reported,
  measured: (input, m) => ({ ...input, ...m.billed, trackDuration: m.seconds, trackTitle: m.title }),
};

async function runDownload<K extends MediaSite>(
  deps: StageDeps,
  ctx: StageContext<K>,
  media: MediaFields<K>,
): Promise<StageNext<K>> {
  const { workDir, signal } = ctx;
  const { row: job, input } = ctx.job;
  const { site } = media;
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
  await ctx.storeFile(key, downloaded.path, INPUT_FORMATS[ext] ?? 'application/octet-stream');
  ctx.progress(5);

  const credits = creditsForDuration(duration);
  const title = media.title(input, downloaded.info.title);
  const billed = {
    fileName: sanitizeFileName(ext ? `${title}.${ext}` : title),
    billedSeconds: credits,
    fileSizeBytes: downloaded.bytes,
  };
  return {
    type: 'next-stage',
    nextStage: 'inference',
    input: media.measured(input, { billed, title, seconds: Math.round(duration) }),
    // credits_required becomes the real cost: what the detail reports and the inference stage charges.
    source: { key, durationSeconds: duration, credits },
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
