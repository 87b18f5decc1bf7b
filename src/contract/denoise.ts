import { z } from 'zod';
import { JobStatus, OutputFormat, progressFields, Timestamp } from './common.ts';

/**
 * POST /denoise-jobs (API.md "Denoise jobs"). The declared size and duration are required by the
 * contract but only informative: the server bills what it measured when the file was uploaded.
 */
export const CreateDenoiseJobRequest = z.object({
  inputFileName: z.string().trim().min(1).max(255),
  /** The upload key returned by POST /files/upload (or POST /upload). */
  inputFilePath: z.string().trim().min(1).max(200),
  inputFileSize: z.number().int().min(0),
  durationSeconds: z.number().int().min(0),
  outputFormat: OutputFormat.default('MP3'),
  /**
   * Most noise reduction allowed, in dB: noise is lowered by at most this much, so some of the
   * recording's ambience stays (e.g. 6-20). Omitted or 0: no limit (full cleaning).
   */
  attenuationLimitDb: z.number().min(0).max(100).optional(),
  /** Denoise jobs emit no events (docs/webhooks.md), so a callback could never be called: refused, not ignored. */
  callbackUrl: z
    .never({ error: 'denoise jobs send no events; poll GET /denoise-jobs/{id} instead' })
    .optional()
    .meta({ description: 'Not supported: denoise jobs emit no events. Sending it answers 400.' }),
});

export const DenoiseJobCreated = z
  .object({
    jobId: z.string(),
    /** Alias of jobId, as every other resource names its id. */
    id: z.string(),
    status: JobStatus,
    outputFormat: OutputFormat,
    createdAt: Timestamp,
    /** The measured duration, rounded up to whole seconds: what is held and will be charged. */
    durationSeconds: z.number().int(),
    creditsRequired: z.number().int(),
    estimatedSeconds: z.number().int(),
  })
  .meta({ id: 'DenoiseJobCreated' });

export const DenoiseJob = z
  .object({
    id: z.string(),
    jobId: z.string(),
    status: JobStatus,
    progress: z.number().int().min(0).max(100),
    inputFileName: z.string(),
    durationSeconds: z.number().int(),
    outputFormat: OutputFormat,
    /** The attenuation limit asked for at creation (dB); null = none. */
    attenuationLimitDb: z.number().nullable(),
    /** Blob-storage key of the cleaned file (`jobs/<id>/denoised.<ext>`); null until COMPLETED. */
    outputFilePath: z.string().nullable(),
    /** `{site}/api/files/download-denoise/<id>` (Bearer auth); null until COMPLETED. */
    downloadUrl: z.string().nullable(),
    creditsCharged: z.number().int().nullable(),
    createdAt: Timestamp,
    completedAt: Timestamp.nullable(),
    expiresAt: Timestamp.nullable(),
    errorMessage: z.string().nullable(),
    ...progressFields,
  })
  .meta({ id: 'DenoiseJob' });

/** Page-numbered list query: `page` is 1-based. */
export const DenoiseListQuery = z.object({
  status: JobStatus.optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const PagePagination = z.object({
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  hasMore: z.boolean(),
});

/** Paging is given twice, as the contract asks: as `pagination` and at the top level. */
export const DenoiseJobList = z
  .object({
    jobs: z.array(DenoiseJob),
    pagination: PagePagination,
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .meta({ id: 'DenoiseJobList' });
