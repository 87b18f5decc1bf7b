import { z } from 'zod';
import { JOB_KINDS, type JobKind as JobKindName } from '../domain/job-kinds.ts';
import { PROGRESS_PHASES } from '../domain/vocabulary.ts';
import { JobStatus, OffsetPagination, OutputFormat, OutputType, Quality, Timestamp } from './common.ts';
import { CreateJobRequest } from './jobs.ts';
import { CreateTrackJobRequest, CreateVideoJobRequest } from './media-jobs.ts';
import { UploadGrant, UploadGrantRequest } from './upload.ts';
import { CreateWebhookRequest, WebhookListItem } from './webhooks.ts';
import { plainText } from './text.ts';

/**
 * The dashboard's JSON API (`/dashboard/api/*`, session-cookie authenticated). These schemas are the
 * single source of truth for both sides: the server parses requests and checks responses with them,
 * the front end (web/) imports the inferred types (type-only), so a renamed field breaks its build.
 * Errors use the API's body `{error:{code,message}}` with codes from src/domain/errors.ts.
 */

export const MIN_PASSWORD_LENGTH = 10;
export const JobKind = z.enum(JOB_KINDS);

// --- session ---------------------------------------------------------------------------------
export const SignInRequest = z.object({
  email: plainText(z.string().trim().min(1).max(320)),
  password: z.string().min(1).max(1024),
});
export const SessionAccount = z.object({
  id: z.string(),
  email: z.string(),
  /** An operator: the Admin pages are shown (`/dashboard/api/admin/*` answers only them). */
  isAdmin: z.boolean(),
});
/** POST /session and GET /session. */
export const SessionInfo = z.object({ account: SessionAccount, csrfToken: z.string() });
export const ChangePasswordRequest = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(MIN_PASSWORD_LENGTH).max(1024),
});

// --- overview and ledger ---------------------------------------------------------------------
export const DashboardBalance = z.object({
  balanceSeconds: z.number().int(),
  balanceMinutes: z.number().int(),
  balanceFormatted: z.string(),
});
export const UsageDay = z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), seconds: z.number().int() });
/** GET /overview: usage is the charged seconds per UTC day for the last 30 days (oldest first, zeros included). */
export const Overview = z.object({
  balance: DashboardBalance,
  usage: z.array(UsageDay),
  /** False where METERING=off: jobs neither hold nor charge credits. */
  metering: z.boolean(),
});

/** DEDUCT: an admin took credit back. */
export const LedgerType = z.enum(['GRANT', 'HOLD', 'CHARGE', 'RELEASE', 'DEDUCT']);
export const LedgerEntry = z.object({
  id: z.string(),
  type: LedgerType,
  seconds: z.number().int(),
  jobId: z.string().nullable(),
  jobKind: JobKind.nullable(),
  /** The job's name or title; null when the job was deleted (its ledger lines stay). */
  jobTitle: z.string().nullable(),
  note: z.string().nullable(),
  createdAt: Timestamp,
});
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
export const LedgerPage = z.object({ entries: z.array(LedgerEntry), pagination: OffsetPagination });

// --- jobs ------------------------------------------------------------------------------------
export const JobsQuery = PageQuery.extend({
  status: JobStatus.optional(),
  kind: JobKind.optional(),
  /** Words the title must contain (case-insensitive). */
  q: z.string().trim().max(200).optional(),
});

const Confidence = z.number().min(0).max(1).nullable();

export const JobSummary = z.object({
  id: z.string(),
  kind: JobKind,
  status: JobStatus,
  progress: z.number().int().min(0).max(100),
  /** What it is doing now (`progressPhase` of the API); `cancelled` for a job its owner cancelled. */
  phase: z.enum(PROGRESS_PHASES),
  /** The name its owner gave it, else the file name or the video/track title. */
  title: z.string(),
  durationSeconds: z.number().int().nullable(),
  creditsCharged: z.number().int().nullable(),
  /** Credits held for it while it is pending or running (0 once it ends). */
  creditsHeld: z.number().int(),
  /** 1 when it is next in the queue; null unless PENDING. */
  queuePosition: z.number().int().nullable(),
  /** Estimated seconds until it is done; null once finished. */
  secondsLeft: z.number().int().nullable(),
  bpm: z.number().nullable(),
  key: z.string().nullable(),
  /** 0-1, how sure the analysis is of the tempo and of the key; null with their value or for older jobs. */
  tempoConfidence: Confidence,
  keyConfidence: Confidence,
  createdAt: Timestamp,
  completedAt: Timestamp.nullable(),
  /** Its owner keeps it past the retention time (Keep): the sweeper leaves it alone. */
  kept: z.boolean(),
});
export const JobsPage = z.object({ jobs: z.array(JobSummary), pagination: OffsetPagination });

export const DashboardOutput = z.object({
  url: z.string(),
  fileName: z.string(),
  format: z.string(),
  sizeBytes: z.number().int().optional(),
});
export const JobView = JobSummary.extend({
  /** outputType and quality are null for denoise jobs (they have only a format). */
  options: z.object({
    outputType: OutputType.nullable(),
    quality: Quality.nullable(),
    outputFormat: OutputFormat,
    denoiseVocals: z.boolean(),
  }),
  errorMessage: z.string().nullable(),
  /** A failed job's `errorDetails.code` (JOB_CANCELLED when its owner cancelled it). */
  errorCode: z.string().nullable(),
  /** When retention deletes the outputs (set once the job ended). */
  expiresAt: Timestamp.nullable(),
  thumbnail: z.string().nullable(),
  /** The video or track page the job came from. */
  sourceUrl: z.string().nullable(),
  /** Signed URL of the original audio (denoise A/B player); null once it is gone. */
  input: z.object({ url: z.string().nullable() }),
  /** Signed URLs, as the API gives them; video and track jobs include `fullAudio`. Empty until COMPLETED. */
  outputs: z.record(z.string(), DashboardOutput),
});

export const PEAK_BUCKETS = 1000;
export const OutputPeaks = z.object({ duration: z.number(), peaks: z.array(z.number().min(0).max(1)) });
/** GET /jobs/:id/peaks: per output (and `input` for denoise jobs), 1000 max-abs values in 0..1. */
export const JobPeaks = z.object({ outputs: z.record(z.string(), OutputPeaks) });

/** Each kind's body for the dashboard's POST /jobs; a kind of the catalog without one fails to compile. */
const CREATE_BODIES = {
  stem: CreateJobRequest.extend({ kind: z.literal('stem') }),
  video: CreateVideoJobRequest.extend({ kind: z.literal('video') }),
  track: CreateTrackJobRequest.extend({ kind: z.literal('track') }),
  denoise: z.object({
    kind: z.literal('denoise'),
    uploadKey: z.string().trim().min(1).max(200),
    fileName: z.string().trim().min(1).max(255),
    outputFormat: OutputFormat.default('MP3'),
  }),
} satisfies { [K in JobKindName]: z.ZodObject<{ kind: z.ZodLiteral<K> }> };
/** POST /jobs: the kind picks which API body follows (same fields and defaults as the API's). */
export const CreateDashboardJobRequest = z.discriminatedUnion('kind', [
  CREATE_BODIES.stem,
  CREATE_BODIES.video,
  CREATE_BODIES.track,
  CREATE_BODIES.denoise,
]);
/** POST /uploads: the same grant as POST /v1/upload. */
export const DashboardUploadRequest = UploadGrantRequest;
export const DashboardUploadGrant = UploadGrant;
export const DashboardJobCreated = z.object({ id: z.string(), kind: JobKind });
/** PATCH /jobs/:id: an empty name goes back to the file name or the media title. */
export const RenameJobRequest = z.object({
  name: plainText(z.string().trim().max(200)),
});

/** GET /capabilities: what this server can do now, for a New-job form that offers only that. */
export const Capabilities = z.object({
  outputTypes: z.array(
    z.object({
      outputType: OutputType,
      stems: z.array(z.string()),
      /** The quality tiers the server offers this output type at. */
      tiers: z.array(Quality),
      model: z.string(),
      /** The model is installed where jobs run (this server or a live worker). */
      installed: z.boolean(),
    }),
  ),
  /** The separation models a stem job may name (`model`), with the output types each serves. */
  models: z.array(z.object({ name: z.string(), family: z.string(), outputTypes: z.array(OutputType) })),
  /** Voice cleaning (denoise jobs and `denoiseVocals`) and its model. */
  voiceCleaning: z.object({ model: z.string(), installed: z.boolean() }),
  formats: z.array(OutputFormat),
  limits: z.object({
    maxFileSizeBytes: z.number().int(),
    maxDurationSeconds: z.number().int(),
    minDurationSeconds: z.number(),
  }),
  /** A job costs this many credits per second of audio, rounded up. */
  creditsPerAudioSecond: z.number(),
  /** False where METERING=off: jobs cost nothing. */
  metering: z.boolean(),
  /**
   * Per tier (and DENOISE): a job takes `perJobSeconds + perAudioSecond x its length`, as measured on
   * this deployment's recent jobs of the tier (`measuredJobs`; 0: the defaults).
   */
  pace: z.record(
    z.string(),
    z.object({ perJobSeconds: z.number(), perAudioSecond: z.number(), measuredJobs: z.number().int() }),
  ),
  /** Jobs the workers run at once (a batch's files run this many at a time). */
  workerConcurrency: z.number().int(),
  balanceSeconds: z.number().int(),
});

// --- keys ------------------------------------------------------------------------------------
export const DashboardKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: Timestamp,
  lastUsedAt: Timestamp.nullable(),
  revokedAt: Timestamp.nullable(),
  isActive: z.boolean(),
});
export const KeyList = z.object({ keys: z.array(DashboardKey) });
export const CreateKeyRequest = z.object({ name: plainText(z.string().trim().min(1).max(100)) });
/** The secret is in this answer only. */
export const KeyCreated = z.object({ key: DashboardKey, secret: z.string() });

// --- webhooks --------------------------------------------------------------------------------
/** As the API lists them: everything but the secret. */
export const DashboardWebhook = WebhookListItem;
export const DashboardWebhookList = z.object({ webhooks: z.array(DashboardWebhook) });
export const DashboardCreateWebhookRequest = CreateWebhookRequest;
/** The signing secret is in this answer only. */
export const DashboardWebhookCreated = DashboardWebhook.extend({ secret: z.string() });
export const WebhookTestResult = z.object({
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
});
export const Delivery = z.object({
  id: z.string(),
  /** `job.completed`, `job.failed`, or `test` for a test event sent from the dashboard. */
  event: z.string(),
  /** Null for a test event. */
  jobId: z.string().nullable(),
  /** The job's name or title; null for a test event or a deleted job. */
  jobTitle: z.string().nullable(),
  /**
   * What happened: `waiting` (not sent yet), `sending`, `delivered` (a 2xx answer), `failed` (another
   * answer, a timeout or a network error), `not-sent` (the webhook was disabled or deleted, or the job gone).
   */
  outcome: z.enum(['waiting', 'sending', 'delivered', 'failed', 'not-sent']),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  error: z.string().nullable(),
  createdAt: Timestamp,
});
export const DeliveryList = z.object({ deliveries: z.array(Delivery) });

// --- inferred types for the front end ----------------------------------------------------------
export type SignInRequestBody = z.input<typeof SignInRequest>;
export type SessionInfoBody = z.infer<typeof SessionInfo>;
export type ChangePasswordRequestBody = z.input<typeof ChangePasswordRequest>;
export type OverviewBody = z.infer<typeof Overview>;
export type LedgerPageBody = z.infer<typeof LedgerPage>;
export type JobSummaryBody = z.infer<typeof JobSummary>;
export type JobsPageBody = z.infer<typeof JobsPage>;
export type JobViewBody = z.infer<typeof JobView>;
export type JobPeaksBody = z.infer<typeof JobPeaks>;
export type CreateDashboardJobRequestBody = z.input<typeof CreateDashboardJobRequest>;
export type DashboardJobCreatedBody = z.infer<typeof DashboardJobCreated>;
export type CapabilitiesBody = z.infer<typeof Capabilities>;
export type KeyListBody = z.infer<typeof KeyList>;
export type CreateKeyRequestBody = z.input<typeof CreateKeyRequest>;
export type KeyCreatedBody = z.infer<typeof KeyCreated>;
export type DashboardWebhookBody = z.infer<typeof DashboardWebhook>;
export type DashboardWebhookListBody = z.infer<typeof DashboardWebhookList>;
export type DashboardCreateWebhookRequestBody = z.input<typeof DashboardCreateWebhookRequest>;
export type DashboardWebhookCreatedBody = z.infer<typeof DashboardWebhookCreated>;
export type WebhookTestResultBody = z.infer<typeof WebhookTestResult>;
export type DeliveryBody = z.infer<typeof Delivery>;
export type DeliveryListBody = z.infer<typeof DeliveryList>;
export type UploadGrantBody = z.infer<typeof UploadGrant>;
export type UploadGrantRequestBody = z.input<typeof UploadGrantRequest>;
export type ErrorBodyShape = { error: { code: string; message: string } };
