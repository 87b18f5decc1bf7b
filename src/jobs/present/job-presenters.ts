import type { JobKind } from '../../domain/job-kinds.ts';
import type { JobViewBody } from '../../contract/dashboard.ts';
import type { WebhookPayloadBody } from '../../contract/webhooks.ts';
import type { TypedJob, TypedJobOf } from '../read-job.ts';

type WebhookData = WebhookPayloadBody['data'];

/**
 * How a kind is shown where every kind meets: the dashboard's job list and page, and webhook
 * payloads. (Each kind's own API resource has its own presenter: `present-*-job.ts`.)
 */
export interface KindPresenter<K extends JobKind> {
  /** The title a person knows the job by. */
  title(job: TypedJobOf<K>): string;
  /** Where it came from: a thumbnail and the page, for imported media. */
  source(job: TypedJobOf<K>): { thumbnail: string | null; sourceUrl: string | null };
  /** Its options on the dashboard's job page. */
  options(job: TypedJobOf<K>): JobViewBody['options'];
  /** The dashboard plays its original audio beside the output (the A/B player). */
  playsInput: boolean;
  /** The tier whose measured pace estimates its time (`estimate.ts`). */
  paceTier(job: TypedJobOf<K>): string;
  /**
   * A webhook payload's kind-specific `data.type`, `data.input` and `data.options`. Kinds that emit
   * no events (`emitsEvents`) still read as the contract's stem shape, should one be built.
   */
  webhook(job: TypedJobOf<K>): Pick<WebhookData, 'type' | 'input' | 'options'>;
}

type SeparationJob = TypedJobOf<'stem' | 'video' | 'track'>;

const noSource = () => ({ thumbnail: null, sourceUrl: null });

const separationOptions = ({ options: o }: SeparationJob) => ({
  outputType: o.outputType,
  quality: o.quality,
  outputFormat: o.outputFormat,
  denoiseVocals: o.denoiseVocals ?? false,
});

/** The contract's stem `input`: `durationSeconds` is what the job is billed for. */
const billedInput = ({ input: i }: TypedJob) => ({
  fileName: i.fileName,
  durationSeconds: i.billedSeconds,
  fileSizeBytes: i.fileSizeBytes,
});

const webhookOptions = ({ options: o }: SeparationJob) => ({
  outputType: o.outputType,
  quality: o.quality,
  outputFormat: o.outputFormat,
});

/** One presenter per kind; the type makes the map complete (`src/domain/job-kinds.ts`). */
export const JOB_PRESENTERS: { [K in JobKind]: KindPresenter<K> } = {
  stem: {
    title: (job) => job.input.fileName || job.row.id,
    source: noSource,
    options: separationOptions,
    playsInput: false,
    paceTier: (job) => job.options.quality,
    webhook: (job) => ({ input: billedInput(job), options: webhookOptions(job) }),
  },
  video: {
    title: (job) => job.input.videoTitle || job.input.fileName || job.row.id,
    source: ({ input: i }) => ({ thumbnail: i.videoThumbnail || null, sourceUrl: i.videoUrl || null }),
    options: separationOptions,
    playsInput: false,
    paceTier: (job) => job.options.quality,
    // The contract's video input; `type` is the route family it was created through (docs/api-compat.md).
    webhook: (job) => {
      const i = job.input;
      return {
        type: i.via ?? 'video',
        input: {
          videoTitle: i.videoTitle,
          videoDuration: Math.round(i.videoDuration),
          videoUrl: i.videoUrl,
          videoVideoId: i.videoId,
        },
        options: webhookOptions(job),
      };
    },
  },
  track: {
    title: (job) => job.input.trackTitle || job.input.fileName || job.row.id,
    source: ({ input: i }) => ({ thumbnail: i.trackArtwork || null, sourceUrl: i.trackUrl || null }),
    options: separationOptions,
    playsInput: false,
    paceTier: (job) => job.options.quality,
    // The contract is silent on tracks; by analogy with video.
    webhook: (job) => {
      const i = job.input;
      const duration = i.trackDuration ?? job.row.duration_seconds;
      return {
        type: i.via ?? 'track',
        input: {
          trackTitle: i.trackTitle,
          trackDuration: duration === null ? null : Math.round(duration),
          trackUrl: i.trackUrl,
          trackId: i.trackId,
        },
        options: webhookOptions(job),
      };
    },
  },
  denoise: {
    title: (job) => job.input.fileName || job.row.id,
    source: noSource,
    // Denoise jobs have only a format: the separation options are null.
    options: (job) => ({
      outputType: null,
      quality: null,
      outputFormat: job.options.outputFormat,
      denoiseVocals: false,
    }),
    playsInput: true,
    paceTier: () => 'DENOISE',
    webhook: (job) => ({
      input: billedInput(job),
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: job.options.outputFormat },
    }),
  },
};

/** The presenter of a job's kind. */
export function presenterOf(job: TypedJob): KindPresenter<JobKind> {
  // The map is keyed by kind, so the entry fits the job; TypeScript does not follow that across the union.
  return JOB_PRESENTERS[job.kind] as KindPresenter<JobKind>;
}
