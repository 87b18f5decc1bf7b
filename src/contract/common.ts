import { z } from 'zod';
import {
  JOB_STATUSES,
  OUTPUT_FORMATS,
  OUTPUT_TYPES,
  PROGRESS_PHASES,
  QUALITIES,
  WEBHOOK_EVENTS,
} from '../domain/vocabulary.ts';
import { plainText } from './text.ts';

/** Shapes shared by several resources. Every schema here is the contract (API.md). */
export const JobStatus = z.enum(JOB_STATUSES);
export const OutputType = z.enum(OUTPUT_TYPES);
export const Quality = z.enum(QUALITIES);
export const OutputFormat = z.enum(OUTPUT_FORMATS);
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);

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

/**
 * Fields the hosted service's responses carry besides the contract's, which its clients read when
 * present: what the job is doing now, and a failed job's error as a code and a message safe to show.
 */
export const progressFields = {
  progressPhase: z.enum(PROGRESS_PHASES).meta({
    description:
      'queued, downloading, loading_model, separating, cleaning, encoding, analysing, uploading, then completed, failed, cancelled (a FAILED job its owner cancelled) or expired.',
  }),
  errorDetails: z
    .object({ code: z.string(), message: z.string() })
    .nullable()
    .meta({ description: 'Set when the job FAILED: a stable code and the same message as errorMessage.' }),
};

/** Custom metadata is echoed in responses and webhooks: bounded to 4 KB of JSON. */
export const MAX_METADATA_BYTES = 4096;

export const Metadata = z
  .record(z.string(), z.unknown())
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= MAX_METADATA_BYTES, {
    message: `must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
  });

/**
 * A job's own webhook (`callbackUrl`, as the hosted service's clients send it): the job's
 * `job.completed` or `job.failed` event is delivered there once, signed with `callbackSecret`
 * (returned by the create call), through the same outbox and address guard as webhooks.
 */
export const CallbackUrl = plainText(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048)).meta({
  description: "Receives this job's job.completed or job.failed event, signed with callbackSecret.",
});

export const callbackCreated = {
  callbackSecret: z
    .string()
    .optional()
    .meta({ description: 'Signs the callbackUrl delivery (X-Webhook-Signature); present only with a callbackUrl.' }),
};
