import type { z } from 'zod';
import type { JobDeps } from './deps.ts';
import { ApiError } from '../domain/errors.ts';
import { creditsForDuration } from '../domain/credits.ts';
import { sanitizeFileName } from '../domain/formats.ts';
import { newId } from '../domain/ids.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../domain/job-state.ts';
import { parseVideoUrl } from '../domain/video-url.ts';
import type { CreateVideoJobRequest, VideoOutputType } from '../contract/video-jobs.ts';
import { checkMinimumDuration, fetchMetadataOrReject } from './media-metadata.ts';
import type { IdempotentAnswer } from '../store/idempotency-keys.ts';
import { insertHeldJob } from './insert-held-job.ts';
import type { VideoJobInput } from './payloads.ts';
import { videoFields } from './present-media-job.ts';

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
  deps: Pick<JobDeps, 'config' | 'db' | 'queue' | 'log'>,
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
  const id = newId('job');
  const createdAt = new Date().toISOString();
  const title = info.title;
  const input: VideoJobInput = {
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
  return insertHeldJob(
    deps,
    {
      id,
      accountId,
      kind: 'video',
      input,
      options: { outputType, quality: body.quality, outputFormat: body.outputFormat },
      sourceKey: null,
      durationSeconds: info.durationSeconds,
      creditsRequired: credits,
      hold: credits,
      createdAt,
      metadata: body.metadata,
      callbackUrl: body.callbackUrl,
    },
    (callbackSecret) => ({
      id,
      status: 'PENDING' as const,
      ...videoFields(input),
      creditsRequired: credits,
      outputs: [...STEMS_BY_OUTPUT_TYPE[outputType]],
      createdAt,
      ...(callbackSecret ? { callbackSecret } : {}),
    }),
    idempotent,
  );
}
