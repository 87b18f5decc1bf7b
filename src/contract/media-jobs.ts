import { z } from 'zod';
import {
  AudioMetadata,
  CallbackUrl,
  callbackCreated,
  JobStatus,
  Metadata,
  OffsetPagination,
  OutputFormat,
  Outputs,
  OutputType,
  progressFields,
  Quality,
  Timestamp,
} from './common.ts';
import { plainText } from './text.ts';

/**
 * Video and track jobs (docs/imports.md): a separation of a video-site or track-site address. Both
 * resources have the same life (created from an address, downloaded, separated, read back with the
 * site's fields) and each answers under the hosted service's name too, whose create body names the
 * address differently (docs/api-compat.md).
 */

/** Created: the site's fields, the stem names the job will produce (`fullAudio` is added), and `extra`. */
function createdSchema<F extends z.ZodRawShape, E extends z.ZodRawShape>(id: string, fields: F, extra: E) {
  return z
    .object({
      ...fields,
      /** The stem names the job will produce; `fullAudio` is always added to the completed outputs. */
      outputs: z.array(z.string()),
      ...extra,
      ...callbackCreated,
    })
    .meta({ id });
}

/** Detail: the site's fields, progress and results; `extra` goes before `metadata`. */
function detailSchema<F extends z.ZodRawShape, E extends z.ZodRawShape>(
  id: string,
  fields: F,
  creditsCharged: z.ZodType<number | null>,
  extra: E,
) {
  return z
    .object({
      ...fields,
      progress: z.number().int().min(0).max(100),
      audioMetadata: AudioMetadata,
      completedAt: Timestamp.nullable(),
      outputs: Outputs,
      creditsCharged,
      errorMessage: z.string().nullable(),
      ...progressFields,
      ...extra,
      metadata: z.record(z.string(), z.unknown()).nullable(),
    })
    .meta({ id });
}

const listSchema = (id: string, detail: z.ZodType) =>
  z.object({ jobs: z.array(detail), pagination: OffsetPagination }).meta({ id });

// --- video ----------------------------------------------------------------------------------

/** Output types a video job can produce (contract: four- and six-stem are unsupported on this route). */
export const VIDEO_OUTPUT_TYPES = ['VOCALS', 'INSTRUMENTAL', 'BOTH'] as const;
export type VideoOutputType = (typeof VIDEO_OUTPUT_TYPES)[number];

const isVideoOutputType = (v: string): v is VideoOutputType => (VIDEO_OUTPUT_TYPES as readonly string[]).includes(v);

export const CreateVideoJobRequest = z.object({
  videoUrl: plainText(z.string().min(1).max(2048)).meta({
    description:
      'Watch address (v=<id>), short address, embed address, shorts/live address, or a bare 11-character video id.',
  }),
  // The full enum is parsed so that FOUR_STEMS / SIX_STEMS get a message saying why, not just "expected one of".
  outputType: OutputType.refine(isVideoOutputType, {
    message:
      'video jobs produce VOCALS, INSTRUMENTAL or BOTH; FOUR_STEMS and SIX_STEMS are not supported here (create a stem job with POST /jobs instead)',
  })
    .default('BOTH')
    // The document shows the contract's three values (the refinement above is not expressible in JSON Schema).
    .meta({
      enum: [...VIDEO_OUTPUT_TYPES],
      description:
        'VOCALS, INSTRUMENTAL or BOTH (default). FOUR_STEMS and SIX_STEMS are refused with 400 VALIDATION_ERROR.',
    }),
  quality: Quality.default('BEST'),
  outputFormat: OutputFormat.default('MP3'),
  metadata: Metadata.optional(),
  callbackUrl: CallbackUrl.optional(),
});

/** `/youtube-jobs` (the hosted service's name for this resource): `youtubeUrl` instead of `videoUrl`. */
export const CreateYoutubeJobRequest = CreateVideoJobRequest.omit({ videoUrl: true }).extend({
  youtubeUrl: CreateVideoJobRequest.shape.videoUrl,
});

const videoFields = {
  id: z.string(),
  status: JobStatus,
  videoId: z.string(),
  videoTitle: z.string(),
  videoDuration: z.number().int(),
  videoThumbnail: z.string(),
  channelName: z.string(),
  /** The canonical watch address (the hosted service's field name). */
  youtubeUrl: z.string(),
  creditsRequired: z.number().int(),
  createdAt: Timestamp,
};

export const VideoJobCreated = createdSchema('VideoJobCreated', videoFields, {});

export const VideoJobDetail = detailSchema('VideoJobDetail', videoFields, z.number().int(), {
  options: z.object({ outputType: OutputType, quality: Quality, outputFormat: OutputFormat }),
});

export const VideoJobList = listSchema('VideoJobList', VideoJobDetail);

// --- track ----------------------------------------------------------------------------------

export const CreateTrackJobRequest = z.object({
  trackUrl: plainText(z.string().min(1).max(2048)).meta({
    description:
      'soundcloud.com/<artist>/<track> (also www. and m.), or on.soundcloud.com/<code>. Playlists and private links are refused.',
  }),
  outputDir: z
    .string()
    .max(4096)
    .optional()
    .meta({ description: 'Accepted for compatibility with other clients and ignored.' }),
  metadata: Metadata.optional(),
  callbackUrl: CallbackUrl.optional(),
});

/** `/soundcloud-jobs` (the hosted service's name for this resource): `soundcloudUrl` instead of `trackUrl`. */
export const CreateSoundcloudJobRequest = CreateTrackJobRequest.omit({ trackUrl: true }).extend({
  soundcloudUrl: CreateTrackJobRequest.shape.trackUrl,
});

const trackFields = {
  id: z.string(),
  status: JobStatus,
  trackId: z.string(),
  trackTitle: z.string().nullable(),
  /** Null until known: from the site's metadata, else measured after the download. */
  trackDuration: z.number().int().nullable(),
  /** True when the duration was unknown at creation: 240 credits were held and are reconciled on completion. */
  trackDurationEstimated: z.boolean(),
  trackArtwork: z.string(),
  artistName: z.string(),
  /** The track page the audio comes from (the hosted service's field name). */
  soundcloudUrl: z.string(),
  creditsRequired: z.number().int().nullable(),
  createdAt: Timestamp,
};

export const TrackJobCreated = createdSchema('TrackJobCreated', trackFields, {
  /** What the client should know about this job's output and billing. */
  note: z.string(),
});

/** `creditsCharged` is null until the job is settled (COMPLETED: the reconciled charge; FAILED: 0). */
export const TrackJobDetail = detailSchema('TrackJobDetail', trackFields, z.number().int().nullable(), {});

export const TrackJobList = listSchema('TrackJobList', TrackJobDetail);
