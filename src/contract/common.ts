import { z } from 'zod';
import { JOB_STATUSES, OUTPUT_FORMATS, OUTPUT_TYPES, QUALITIES } from '../domain/vocabulary.ts';

/** Shapes shared by several resources. Every schema here is the contract (API.md). */
export const JobStatus = z.enum(JOB_STATUSES);
export const OutputType = z.enum(OUTPUT_TYPES);
export const Quality = z.enum(QUALITIES);
export const OutputFormat = z.enum(OUTPUT_FORMATS);
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

export const AudioMetadata = z.object({ bpm: z.number().nullable(), key: z.string().nullable() }).nullable();

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
