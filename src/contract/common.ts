import { z } from 'zod';

/** Shapes shared by several resources. Every schema here is the contract (API.md). */
export const JobStatus = z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED']);
export const OutputType = z.enum(['VOCALS', 'INSTRUMENTAL', 'BOTH', 'FOUR_STEMS', 'SIX_STEMS']);
export const Quality = z.enum(['FAST', 'BALANCED', 'BEST']);
export const OutputFormat = z.enum(['MP3', 'WAV', 'FLAC']);
export const WebhookEvent = z.enum(['job.completed', 'job.failed']);

export const Timestamp = z.iso.datetime();

export const ErrorBody = z
  .object({
    error: z.looseObject({
      code: z.string(),
      message: z.string(),
    }),
  })
  .meta({ id: 'Error' });

export const OutputEntry = z.object({ url: z.string(), expiresAt: Timestamp }).meta({ id: 'OutputEntry' });
export const Outputs = z.record(z.string(), OutputEntry).nullable();

/**
 * BPM and key (the contract's two), plus each one's confidence (0-1, extra fields: absent on jobs
 * analysed before they existed, null when their value is null).
 */
export const AudioMetadata = z
  .object({
    bpm: z.number().nullable(),
    key: z.string().nullable(),
    tempoConfidence: z.number().min(0).max(1).nullable().optional(),
    keyConfidence: z.number().min(0).max(1).nullable().optional(),
  })
  .nullable();
export type AudioMetadataValue = NonNullable<z.infer<typeof AudioMetadata>>;

export const OffsetPagination = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});

/** Query parameters of offset-paged lists: limit 1-100 (default 20), offset >= 0, optional status. */
export const OffsetListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
  status: JobStatus.optional(),
});

export const IdParams = z.object({ id: z.string().min(1).max(100) });
