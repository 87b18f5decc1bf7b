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

/** Output types a video job can produce (contract: four- and six-stem are unsupported on this route). */
export const VIDEO_OUTPUT_TYPES = ['VOCALS', 'INSTRUMENTAL', 'BOTH'] as const;
export type VideoOutputType = (typeof VIDEO_OUTPUT_TYPES)[number];

const isVideoOutputType = (v: string): v is VideoOutputType => (VIDEO_OUTPUT_TYPES as readonly string[]).includes(v);

export const CreateVideoJobRequest = z.object({
  videoUrl: z.string().min(1).max(2048).meta({
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

export const VideoJobCreated = z
  .object({
    ...videoFields,
    /** The stem names the job will produce; `fullAudio` is always added to the completed outputs. */
    outputs: z.array(z.string()),
    ...callbackCreated,
  })
  .meta({ id: 'VideoJobCreated' });

export const VideoJobDetail = z
  .object({
    ...videoFields,
    progress: z.number().int().min(0).max(100),
    audioMetadata: AudioMetadata,
    completedAt: Timestamp.nullable(),
    outputs: Outputs,
    creditsCharged: z.number().int(),
    errorMessage: z.string().nullable(),
    ...progressFields,
    options: z.object({ outputType: OutputType, quality: Quality, outputFormat: OutputFormat }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'VideoJobDetail' });

export const VideoJobList = z
  .object({ jobs: z.array(VideoJobDetail), pagination: OffsetPagination })
  .meta({ id: 'VideoJobList' });
