import { z } from 'zod';
import {
  AudioMetadata,
  CallbackUrl,
  callbackCreated,
  JobStatus,
  Metadata,
  OffsetPagination,
  Outputs,
  progressFields,
  Timestamp,
} from './common.ts';

export const CreateTrackJobRequest = z.object({
  trackUrl: z.string().min(1).max(2048).meta({
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

export const TrackJobCreated = z
  .object({
    ...trackFields,
    /** The stem names the job will produce; `fullAudio` is always added to the completed outputs. */
    outputs: z.array(z.string()),
    /** What the client should know about this job's output and billing. */
    note: z.string(),
    ...callbackCreated,
  })
  .meta({ id: 'TrackJobCreated' });

export const TrackJobDetail = z
  .object({
    ...trackFields,
    progress: z.number().int().min(0).max(100),
    audioMetadata: AudioMetadata,
    completedAt: Timestamp.nullable(),
    outputs: Outputs,
    /** Null until the job is settled (COMPLETED: the reconciled charge; FAILED: 0). */
    creditsCharged: z.number().int().nullable(),
    errorMessage: z.string().nullable(),
    ...progressFields,
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'TrackJobDetail' });

export const TrackJobList = z
  .object({ jobs: z.array(TrackJobDetail), pagination: OffsetPagination })
  .meta({ id: 'TrackJobList' });
