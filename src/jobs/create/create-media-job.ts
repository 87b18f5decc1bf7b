import type { z } from 'zod';
import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { creditsForDuration } from '../../domain/credits.ts';
import { sanitizeFileName } from '../../domain/formats.ts';
import { newId } from '../../domain/ids.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../../domain/job-state.ts';
import { parseTrackUrl, type ParsedTrackUrl } from '../../domain/track-url.ts';
import { parseVideoUrl } from '../../domain/video-url.ts';
import type { CreateTrackJobRequest, CreateVideoJobRequest, VideoOutputType } from '../../contract/media-jobs.ts';
import type { MediaInfo } from '../../sources/ytdlp.ts';
import type { IdempotentAnswer } from '../../store/idempotency-keys.ts';
import type { OutputTypeValue, QualityValue } from '../../domain/vocabulary.ts';
import { checkMinimumDuration, fetchMetadataOrReject, type MediaSite } from './media-metadata.ts';
import { insertHeldJob } from './insert-held-job.ts';
import type { JobInputOf, JobOptionsOf } from '../payloads.ts';
import { trackFields, videoFields } from '../present/present-media-job.ts';
import { chooseSeparationModel } from './choose-model.ts';

/** Contract, "Limits": the hold when a track's duration cannot be read up front (4 minutes). */
export const UNKNOWN_TRACK_HOLD_CREDITS = 240;

/** Contract, "Track jobs": output fixed to vocals + instrumental, MP3, BEST. */
export const TRACK_OPTIONS = { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' } as const;

type Deps = Pick<JobDeps, 'config' | 'db' | 'queue' | 'log' | 'metrics'>;

/** The model a video or track job runs (the operator's choice, else the registry's), stored with it. */
const modelFor = (deps: Deps, outputType: OutputTypeValue, quality: QualityValue) =>
  chooseSeparationModel(
    { outputType, quality },
    { modelsDir: deps.config.modelsDir, choices: deps.config.onnx.separationModels },
  ).name;

/**
 * POST /video-jobs: parses the address (only the canonical watch URL reaches yt-dlp), reads the
 * metadata first so the answer carries title, duration and credits, then holds the credits and
 * creates the job; the download runs on the download workers.
 *
 * A video whose duration the site does not report is refused (VIDEO_DURATION_UNKNOWN) rather than
 * held on an estimate like tracks: a video may last up to 60 minutes, so any estimate would either
 * block most accounts or leave most of the cost to be written off.
 */
export async function createVideoJob(
  deps: Deps,
  accountId: string,
  body: z.infer<typeof CreateVideoJobRequest>,
  via: 'video' | 'youtube' = 'video',
  idempotent?: IdempotentAnswer,
) {
  const { videoId, canonicalUrl } = parseVideoUrl(body.videoUrl);
  const info = await fetchMetadataOrReject(deps, canonicalUrl, 'video');
  if (info.durationSeconds === null) {
    throw new ApiError(
      'VIDEO_DURATION_UNKNOWN',
      'The video site does not say how long this video is, so its cost cannot be known before downloading; it cannot be imported.',
    );
  }
  checkMinimumDuration(deps, info.durationSeconds, 'video');
  const credits = creditsForDuration(info.durationSeconds);
  const outputType = body.outputType as VideoOutputType;
  const title = info.title;
  const input: JobInputOf<'video'> = {
    fileName: sanitizeFileName(title),
    billedSeconds: credits,
    fileSizeBytes: 0,
    downloadUrl: canonicalUrl,
    videoId,
    videoTitle: title,
    videoDuration: Math.round(info.durationSeconds),
    videoUrl: canonicalUrl,
    // YouTube serves a thumbnail for every id at this address; used when yt-dlp names none.
    videoThumbnail: info.thumbnail ?? `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
    channelName: info.channel ?? info.uploader ?? '',
    via,
  };
  const options = {
    outputType,
    quality: body.quality,
    outputFormat: body.outputFormat,
    model: modelFor(deps, outputType, body.quality),
  };
  return insertMediaJob(deps, accountId, body, idempotent, {
    kind: 'video',
    input,
    options,
    durationSeconds: info.durationSeconds,
    credits,
    hold: credits,
    answer: { ...videoFields(input) },
  });
}

/**
 * POST /track-jobs. Metadata first (title, artist, artwork, duration); when the site gives no
 * duration the job is created with `creditsRequired` null and `trackDurationEstimated` true, and
 * 240 credits are held. Whatever was held, the charge on completion is the probed duration of the
 * downloaded audio (src/worker/media-inference-stage.ts).
 */
export async function createTrackJob(
  deps: Deps,
  accountId: string,
  body: z.infer<typeof CreateTrackJobRequest>,
  via: 'track' | 'soundcloud' = 'track',
  idempotent?: IdempotentAnswer,
) {
  const parsed = parseTrackUrl(body.trackUrl);
  const info = await fetchMetadataOrReject(deps, parsed.canonicalUrl, 'track');
  const target = resolvedTrack(parsed, info);
  const known = info.durationSeconds;
  if (known !== null) checkMinimumDuration(deps, known, 'track');
  const credits = known === null ? null : creditsForDuration(known);
  const input: JobInputOf<'track'> = {
    fileName: sanitizeFileName(info.title),
    billedSeconds: credits ?? UNKNOWN_TRACK_HOLD_CREDITS,
    fileSizeBytes: 0,
    downloadUrl: target.url,
    trackId: target.trackId ?? info.id,
    trackTitle: info.title,
    trackDuration: known === null ? null : Math.round(known),
    trackDurationEstimated: known === null,
    trackArtwork: info.thumbnail ?? '',
    artistName: info.uploader ?? info.channel ?? '',
    trackUrl: parsed.canonicalUrl,
    via,
  };
  return insertMediaJob(deps, accountId, body, idempotent, {
    kind: 'track',
    input,
    options: { ...TRACK_OPTIONS, model: modelFor(deps, TRACK_OPTIONS.outputType, TRACK_OPTIONS.quality) },
    durationSeconds: known,
    credits,
    hold: credits ?? UNKNOWN_TRACK_HOLD_CREDITS,
    answer: { ...trackFields(input), note: trackNote(input.trackDurationEstimated) },
  });
}

/** What differs between a video and a track job at creation; the insert and the answer's frame are shared. */
interface NewMediaJob<K extends MediaSite, A> {
  kind: K;
  input: JobInputOf<K>;
  options: JobOptionsOf<K>;
  /** Site-reported duration; null when unknown until the download measures it. */
  durationSeconds: number | null;
  /** Credits the job is quoted at; null when only an estimate is held. */
  credits: number | null;
  hold: number;
  /** The site's own fields of the create answer. */
  answer: A;
}

/** Holds the credits and inserts the job (its download stage comes first); answers the contract's created body. */
function insertMediaJob<K extends MediaSite, A>(
  deps: Deps,
  accountId: string,
  body: { metadata?: Record<string, unknown>; callbackUrl?: string },
  idempotent: IdempotentAnswer | undefined,
  job: NewMediaJob<K, A>,
) {
  const id = newId('job');
  const createdAt = new Date().toISOString();
  const common = {
    id,
    accountId,
    sourceKey: null,
    durationSeconds: job.durationSeconds,
    creditsRequired: job.credits,
    hold: job.hold,
    createdAt,
    metadata: body.metadata,
    callbackUrl: body.callbackUrl,
  };
  // Video and track inputs are each their kind's; TypeScript does not pair them across the union.
  const typed = { ...common, kind: job.kind, input: job.input, options: job.options } as Parameters<
    typeof insertHeldJob
  >[1];
  return insertHeldJob(
    deps,
    typed,
    (callbackSecret) => ({
      id,
      status: 'PENDING' as const,
      ...job.answer,
      creditsRequired: job.credits,
      outputs: [...STEMS_BY_OUTPUT_TYPE[job.options.outputType]],
      createdAt,
      ...(callbackSecret ? { callbackSecret } : {}),
    }),
    idempotent,
  );
}

/**
 * Where the download goes. A short code is resolved once, here: the track page yt-dlp reports is
 * checked with the same address rules and pinned as the download address, so the code cannot be
 * re-pointed between creation and download. A private share link behind a code is TRACK_NOT_FOUND.
 */
function resolvedTrack(parsed: ParsedTrackUrl, info: MediaInfo): { url: string; trackId: string | null } {
  if (parsed.kind === 'track' || !info.webpageUrl) return { url: parsed.canonicalUrl, trackId: parsed.trackId };
  if (/\/s-[A-Za-z0-9]+\/?$|[?&]secret_token=/.test(info.webpageUrl)) {
    throw new ApiError('TRACK_NOT_FOUND', 'The track is private: private tracks are not supported.');
  }
  const page = parseTrackUrl(info.webpageUrl);
  return { url: page.canonicalUrl, trackId: page.trackId };
}

/** The create response's `note` (the hosted service's field): what the job produces and how it is billed. */
function trackNote(estimated: boolean): string {
  const output = 'Output is fixed to vocals + instrumental, MP3, BEST quality.';
  return estimated
    ? `${output} The track's length is unknown until it is downloaded: ${UNKNOWN_TRACK_HOLD_CREDITS} credits are held and the charge is reconciled to the measured length.`
    : `${output} The charge is reconciled to the downloaded audio's measured length.`;
}
