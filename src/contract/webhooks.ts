import { z } from 'zod';
import { plainText } from './text.ts';
import { JobStatus, OutputFormat, Outputs, OutputType, Quality, Timestamp, WebhookEvent } from './common.ts';

const ALL_EVENTS = WebhookEvent.options;

/** http(s) only, checked here so a wrong scheme is a VALIDATION_ERROR naming `url`; addresses are checked by the handler. */
const HttpUrl = plainText(z.string().trim().min(1).max(2048)).refine(
  (v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'must be an absolute http or https URL' },
);

export const CreateWebhookRequest = z
  .object({
    url: HttpUrl,
    events: z
      .array(WebhookEvent)
      .min(1, { message: 'must name at least one event (omit it to subscribe to all)' })
      .max(10)
      .optional()
      // A subset: duplicates are dropped, the order is the catalogue's.
      .transform((events) => (events ? ALL_EVENTS.filter((e) => events.includes(e)) : [...ALL_EVENTS])),
  })
  .strict();

export const WebhookCreated = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEvent),
    secret: z.string(),
    isActive: z.boolean(),
    createdAt: Timestamp,
  })
  .strict()
  .meta({ id: 'WebhookCreated' });

export const WebhookListItem = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(WebhookEvent),
    isActive: z.boolean(),
    failCount: z.number().int(),
    lastError: z.string().nullable(),
    lastCalledAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .strict()
  .meta({ id: 'Webhook' });

export const WebhookList = z.object({ webhooks: z.array(WebhookListItem) }).meta({ id: 'WebhookList' });

export const WebhookDeleted = z.object({ deleted: z.literal(true) }).meta({ id: 'WebhookDeleted' });

const StemPayloadInput = z
  .object({ fileName: z.string(), durationSeconds: z.number().int(), fileSizeBytes: z.number().int() })
  .strict();
const VideoPayloadInput = z
  .object({
    videoTitle: z.string().nullable(),
    videoDuration: z.number().int().nullable(),
    videoUrl: z.string().nullable(),
    videoVideoId: z.string().nullable(),
  })
  .strict();
const TrackPayloadInput = z
  .object({
    trackTitle: z.string().nullable(),
    trackDuration: z.number().int().nullable(),
    trackUrl: z.string().nullable(),
    trackId: z.string().nullable(),
  })
  .strict();

/**
 * The body of every webhook request (contract, "Events / Payload"). Not a route, so it is not in
 * the OpenAPI paths; docs/webhooks.md shows it and the tests parse every received body with it.
 * `type` is present on video ("video") and track ("track") jobs only; `metadata` only when the job
 * was created with custom metadata.
 */
export const WebhookPayload = z
  .object({
    event: WebhookEvent,
    timestamp: Timestamp,
    data: z
      .object({
        jobId: z.string(),
        status: JobStatus,
        type: z.enum(['video', 'youtube', 'track', 'soundcloud']).optional(),
        input: z.union([StemPayloadInput, VideoPayloadInput, TrackPayloadInput]),
        options: z.object({ outputType: OutputType, quality: Quality, outputFormat: OutputFormat }).strict(),
        outputs: Outputs,
        creditsCharged: z.number().int(),
        errorMessage: z.string().nullable(),
        createdAt: Timestamp,
        completedAt: Timestamp.nullable(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'WebhookPayload' });

export type WebhookPayloadBody = z.infer<typeof WebhookPayload>;
