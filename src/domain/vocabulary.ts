/**
 * The service's words, declared once: the contract's enums (`src/contract/common.ts`), the stored
 * rows (`src/store/schema.ts`) and the job payloads (`src/jobs/payloads.ts`) are all built from
 * these lists. The job kinds are their own catalog, `job-kinds.ts`.
 */
export const JOB_STATUSES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export type JobStatusValue = (typeof JOB_STATUSES)[number];

/** Stem names produced for each output type; keys of `outputs` (fullAudio is added for video and track jobs). */
export const STEMS_BY_OUTPUT_TYPE = {
  VOCALS: ['vocals'],
  INSTRUMENTAL: ['instrumental'],
  BOTH: ['vocals', 'instrumental'],
  FOUR_STEMS: ['vocals', 'drums', 'bass', 'other'],
  SIX_STEMS: ['vocals', 'drums', 'bass', 'other', 'piano', 'guitar'],
} as const;

export type OutputTypeValue = keyof typeof STEMS_BY_OUTPUT_TYPE;
export const OUTPUT_TYPES = Object.keys(STEMS_BY_OUTPUT_TYPE) as [OutputTypeValue, ...OutputTypeValue[]];
export type StemName = (typeof STEMS_BY_OUTPUT_TYPE)[OutputTypeValue][number];

export const QUALITIES = ['FAST', 'BALANCED', 'BEST'] as const;
export type QualityValue = (typeof QUALITIES)[number];

export const OUTPUT_FORMATS = ['MP3', 'WAV', 'FLAC'] as const;
export type OutputFormatValue = (typeof OUTPUT_FORMATS)[number];
/** An output format as the encoders and file names spell it (`mp3`, `wav`, `flac`). */
export type AudioFormat = Lowercase<OutputFormatValue>;
export const audioFormatOf = (format: OutputFormatValue): AudioFormat => format.toLowerCase() as AudioFormat;

/**
 * What a job is doing, next to its `progress` (`progressPhase` in responses). A job moves through
 * them in this order, skipping those that do not apply (denoise jobs never separate; stem jobs
 * never download from a site). A cancelled job is FAILED with the phase `cancelled`.
 */
export const PROGRESS_PHASES = [
  'queued',
  'downloading',
  'loading_model',
  'separating',
  'cleaning',
  'encoding',
  'analysing',
  'uploading',
  'completed',
  'failed',
  'cancelled',
  'expired',
] as const;
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];

/** Webhook event kinds (the contract has no others). */
export const WEBHOOK_EVENTS = ['job.completed', 'job.failed'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];
export const isWebhookEvent = (v: unknown): v is WebhookEventName => (WEBHOOK_EVENTS as readonly unknown[]).includes(v);

/** `errorDetails.code` of a job its owner cancelled (it is FAILED, phase `cancelled`). */
export const JOB_CANCELLED_CODE = 'JOB_CANCELLED';

/**
 * `errorDetails.code` of a job whose attempts were cut by the process dying JOB_MAX_CRASHES times
 * (a poison input that kills its worker): it is FAILED and its credits released, not run again.
 */
export const JOB_CRASHED_CODE = 'JOB_CRASHED';

/** The onnxruntime execution providers a worker can be started with (`ORT_EXECUTION_PROVIDER`). */
export const EXECUTION_PROVIDERS = ['cpu', 'cuda', 'webgpu'] as const;
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];
