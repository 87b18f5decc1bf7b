import { z } from 'zod';
import { sanitizeFileName } from '../domain/formats.ts';
import {
  AudioMetadata,
  JobStatus,
  OffsetPagination,
  OutputFormat,
  Outputs,
  OutputType,
  Quality,
  CallbackUrl,
  callbackCreated,
  Metadata,
  progressFields,
  Timestamp,
} from './common.ts';
import { plainText } from './text.ts';

export const CreateJobRequest = z
  .object({
    uploadKey: z.string().min(1).max(200).optional(),
    sourceUrl: plainText(z.string().min(1).max(2048)).optional(),
    // The one sanitiser of client-sent names (control characters, CR LF, bidi overrides, paths).
    fileName: z.string().trim().min(1).max(255).transform(sanitizeFileName).optional(),
    outputType: OutputType.default('BOTH'),
    quality: Quality.default('BEST'),
    outputFormat: OutputFormat.default('MP3'),
    metadata: Metadata.optional(),
    denoiseVocals: z.boolean().default(false),
    callbackUrl: CallbackUrl.optional(),
    /**
     * An installed separation model by name (GET /v1/models lists them, with the output types each
     * serves); absent: the server's choice for the output type and tier.
     */
    model: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'An installed separation model (GET /v1/models); absent: the server chooses.' }),
  })
  // Exactly one input, for the OpenAPI document; the handler answers MISSING_INPUT or CONFLICTING_INPUT.
  .meta({ oneOf: [{ required: ['uploadKey'] }, { required: ['sourceUrl'] }] });

export const JobInput = z.object({
  fileName: z.string(),
  durationSeconds: z.number().int(),
  fileSizeBytes: z.number().int(),
});
export const JobOptions = z.object({ outputType: OutputType, quality: Quality, outputFormat: OutputFormat });

export const JobCreated = z
  .object({
    id: z.string(),
    status: JobStatus,
    progress: z.number().int().min(0).max(100),
    createdAt: Timestamp,
    estimatedSeconds: z.number().int(),
    creditsRequired: z.number().int(),
    input: JobInput,
    options: JobOptions,
    outputs: Outputs,
    metadata: z.record(z.string(), z.unknown()).nullable(),
    ...callbackCreated,
  })
  .meta({ id: 'JobCreated' });

export const JobDetail = z
  .object({
    id: z.string(),
    status: JobStatus,
    progress: z.number().int().min(0).max(100),
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable(),
    input: JobInput,
    options: JobOptions,
    audioMetadata: AudioMetadata,
    outputs: Outputs,
    creditsCharged: z.number().int(),
    errorMessage: z.string().nullable(),
    ...progressFields,
    expiresAt: Timestamp.nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'JobDetail' });

export const JobListItem = z
  .object({
    id: z.string(),
    status: JobStatus,
    progress: z.number().int(),
    createdAt: Timestamp,
    completedAt: Timestamp.nullable(),
    input: JobInput.pick({ fileName: true, durationSeconds: true }),
    options: JobOptions,
    creditsCharged: z.number().int(),
    errorMessage: z.string().nullable(),
  })
  .strict()
  .meta({ id: 'JobListItem' });

export const JobList = z.object({ jobs: z.array(JobListItem), pagination: OffsetPagination }).meta({ id: 'JobList' });
