import { z } from 'zod';
import { JobAnalysis } from './analysis.ts';
import { OutputFormat } from './common.ts';

/**
 * The dashboard's practice routes (`/dashboard/api/jobs/:id/...`, session-cookie authenticated):
 * the job's analysis for the player, what the player remembers, exports at a tempo and pitch, and
 * Keep. Part of the dashboard's JSON API (dashboard.ts says how the two sides use these schemas).
 */

/** GET /jobs/:id/analysis: the same body as GET /v1/jobs/{id}/analysis, for the signed-in account's job. */
export const DashboardJobAnalysis = JobAnalysis;

const Unit = z.number().min(0).max(1);
/** What the stem player remembers of a job, per account (PUT replaces the whole of it). */
export const PlayerSettings = z.object({
  /** 0.5-1.5: the playback speed, pitch kept. */
  tempo: z.number().min(0.5).max(1.5),
  /** Semitones, tempo kept. */
  pitch: z.number().int().min(-12).max(12),
  /** Per stem (by output name). */
  tracks: z
    .record(z.string().min(1).max(40), z.object({ volume: Unit, muted: z.boolean(), soloed: z.boolean() }))
    .refine((t) => Object.keys(t).length <= 12, 'At most 12 stems.'),
  loop: z.object({ enabled: z.boolean(), start: z.number().min(0), end: z.number().min(0) }),
  /** The click track: on or off, its volume, and a count-in of one bar before playback. */
  click: z.object({ enabled: z.boolean(), volume: Unit, countIn: z.boolean() }),
  /** What a loop dragged on the waveform snaps to. */
  snap: z.enum(['off', 'beat', 'bar']),
});
/** GET /jobs/:id/player-settings: null until the player saved any. */
export const StoredPlayerSettings = z.object({ settings: PlayerSettings.nullable() });

/**
 * GET /jobs/:id/export: a stem or the mix at a tempo and pitch, in a format, rendered by the server.
 * `gains`, for a mix: each stem's gain as heard, "vocals:0,drums:1,bass:0.5" (a stem left out is silent).
 */
export const ExportQuery = z.object({
  what: z.string().trim().min(1).max(40).default('mix'),
  format: OutputFormat.default('WAV'),
  tempo: z.coerce.number().min(0.5).max(1.5).default(1),
  pitch: z.coerce.number().int().min(-12).max(12).default(0),
  gains: z
    .string()
    .max(600)
    .regex(/^([\w-]{1,40}:(0|1|0?\.\d{1,4}))(,[\w-]{1,40}:(0|1|0?\.\d{1,4}))*$/, 'name:gain pairs, comma-separated')
    .optional(),
});

/** GET /keep: what the account keeps past retention against the limit this server sets (0: Keep is off). */
export const KeepUsage = z.object({
  jobs: z.number().int(),
  usedBytes: z.number().int(),
  limitBytes: z.number().int(),
});

export type JobAnalysisBody = z.infer<typeof DashboardJobAnalysis>;
export type PlayerSettingsBody = z.infer<typeof PlayerSettings>;
export type StoredPlayerSettingsBody = z.infer<typeof StoredPlayerSettings>;
export type KeepUsageBody = z.infer<typeof KeepUsage>;
