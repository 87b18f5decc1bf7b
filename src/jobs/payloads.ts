import { z } from 'zod';
import type { JobKind } from '../domain/job-kinds.ts';
import { OUTPUT_FORMATS, OUTPUT_TYPES, type OutputTypeValue, QUALITIES } from '../domain/vocabulary.ts';
import { separationModelFor } from '../models/registry.ts';

/**
 * What each job kind stores in `input_json` and `options_json`, as schemas: the single source of
 * truth for writing a job (`insertHeldJob`) and reading one back (`readJob`). Every kind's input
 * carries `fileName`, `billedSeconds` (whole seconds the job is billed for) and `fileSizeBytes`.
 */

/** Rows written before `billedSeconds` was named for what it is call it `durationSeconds`. */
const legacyBilled = (v: unknown) =>
  v && typeof v === 'object' && !('billedSeconds' in v) && 'durationSeconds' in v
    ? { ...v, billedSeconds: (v as { durationSeconds: unknown }).durationSeconds }
    : v;

const base = {
  fileName: z.string(),
  billedSeconds: z.number(),
  fileSizeBytes: z.number(),
};

const StemInput = z.preprocess(legacyBilled, z.object(base));

/**
 * Jobs queued before the model was stored with them: read as the model the registry picked for
 * their output type when this was written (the one it picks today), once, here; the worker and the
 * engines then read `model` like any job's.
 */
const legacyModel = (v: unknown) =>
  v &&
  typeof v === 'object' &&
  !('model' in v) &&
  (OUTPUT_TYPES as readonly unknown[]).includes((v as { outputType?: unknown }).outputType)
    ? { ...v, model: separationModelFor((v as { outputType: OutputTypeValue }).outputType).name }
    : v;

const SeparationOptions = z.preprocess(
  legacyModel,
  z.object({
    outputType: z.enum(OUTPUT_TYPES),
    quality: z.enum(QUALITIES),
    outputFormat: z.enum(OUTPUT_FORMATS),
    denoiseVocals: z.boolean().optional(),
    /** The registry name of the model that runs it, chosen when the job was created. */
    model: z.string(),
  }),
);

/** Video and track inputs: filled in for real by the download stage; `downloadUrl` is what yt-dlp gets. */
const media = { ...base, downloadUrl: z.string() };

const VideoInput = z.preprocess(
  legacyBilled,
  z.object({
    ...media,
    videoId: z.string(),
    videoTitle: z.string(),
    videoDuration: z.number(),
    videoUrl: z.string(),
    videoThumbnail: z.string(),
    channelName: z.string(),
    /** The route family it was created through: its webhook `data.type` (docs/api-compat.md). */
    via: z.enum(['video', 'youtube']).optional(),
  }),
);

const TrackInput = z.preprocess(
  legacyBilled,
  z.object({
    ...media,
    trackId: z.string(),
    trackTitle: z.string().nullable(),
    trackDuration: z.number().nullable(),
    trackDurationEstimated: z.boolean(),
    trackArtwork: z.string(),
    artistName: z.string(),
    trackUrl: z.string(),
    /** The route family it was created through: its webhook `data.type` (docs/api-compat.md). */
    via: z.enum(['track', 'soundcloud']).optional(),
  }),
);

/** Denoise inputs also keep what the client declared (for support; never billed). */
const DenoiseInput = z.preprocess(
  legacyBilled,
  z.object({ ...base, declared: z.object({ durationSeconds: z.number(), fileSizeBytes: z.number() }) }),
);

const DenoiseOptions = z.object({
  outputFormat: z.enum(OUTPUT_FORMATS),
  /** Most noise reduction allowed, dB; absent = no limit. */
  attenuationLimitDb: z.number().optional(),
});

export const JOB_PAYLOADS = {
  stem: { input: StemInput, options: SeparationOptions },
  video: { input: VideoInput, options: SeparationOptions },
  track: { input: TrackInput, options: SeparationOptions },
  denoise: { input: DenoiseInput, options: DenoiseOptions },
} as const satisfies Record<JobKind, { input: z.ZodType; options: z.ZodType }>;

export type JobInputOf<K extends JobKind> = z.output<(typeof JOB_PAYLOADS)[K]['input']>;
export type JobOptionsOf<K extends JobKind> = z.output<(typeof JOB_PAYLOADS)[K]['options']>;

export type StemInput = JobInputOf<'stem'>;
export type VideoJobInput = JobInputOf<'video'>;
export type TrackJobInput = JobInputOf<'track'>;
export type DenoiseInput = JobInputOf<'denoise'>;
export type SeparationOptions = JobOptionsOf<'stem'>;
export type DenoiseOptions = JobOptionsOf<'denoise'>;

/** What a COMPLETED job stores in `outputs_json`: each output's blob key and how it downloads. */
export const StoredOutputSchema = z.object({ key: z.string(), fileName: z.string(), contentType: z.string() });
export const StoredOutputsSchema = z.record(z.string(), StoredOutputSchema);
