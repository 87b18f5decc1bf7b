import type { z } from 'zod';
import type { JobDeps } from './deps.ts';
import { ApiError } from '../domain/errors.ts';
import { creditsForDuration } from '../domain/credits.ts';
import { sanitizeFileName } from '../domain/formats.ts';
import { newId } from '../domain/ids.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../domain/job-state.ts';
import { parseTrackUrl, type ParsedTrackUrl } from '../domain/track-url.ts';
import type { MediaInfo } from '../sources/ytdlp.ts';
import type { CreateTrackJobRequest } from '../contract/track-jobs.ts';
import { checkMinimumDuration, fetchMetadataOrReject } from './media-metadata.ts';
import type { IdempotentAnswer } from '../store/idempotency-keys.ts';
import { insertHeldJob } from './insert-held-job.ts';
import type { TrackJobInput } from './payloads.ts';
import { trackFields } from './present-media-job.ts';

/** Contract, "Limits": the hold when a track's duration cannot be read up front (4 minutes). */
export const UNKNOWN_TRACK_HOLD_CREDITS = 240;

/** Contract, "Track jobs": output fixed to vocals + instrumental, MP3, BEST. */
export const TRACK_OPTIONS = { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' } as const;

/**
 * POST /track-jobs. Metadata first (title, artist, artwork, duration); when the site gives no
 * duration the job is created with `creditsRequired` null and `trackDurationEstimated` true, and
 * 240 credits are held. Whatever was held, the charge on completion is the probed duration of the
 * downloaded audio (src/worker/media-inference-stage.ts).
 */
export async function createTrackJob(
  deps: Pick<JobDeps, 'config' | 'db' | 'queue' | 'log'>,
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
  const id = newId('job');
  const createdAt = new Date().toISOString();
  const input: TrackJobInput = {
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
  return insertHeldJob(
    deps,
    {
      id,
      accountId,
      kind: 'track',
      input,
      options: { ...TRACK_OPTIONS },
      sourceKey: null,
      durationSeconds: known,
      creditsRequired: credits,
      hold: credits ?? UNKNOWN_TRACK_HOLD_CREDITS,
      createdAt,
      metadata: body.metadata,
      callbackUrl: body.callbackUrl,
    },
    (callbackSecret) => ({
      id,
      status: 'PENDING' as const,
      ...trackFields(input),
      creditsRequired: credits,
      outputs: [...STEMS_BY_OUTPUT_TYPE[TRACK_OPTIONS.outputType]],
      note: trackNote(input.trackDurationEstimated),
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
