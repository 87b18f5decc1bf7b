import type { JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { signOutputs } from '../jobs/outputs.ts';
import type { WebhookPayloadBody } from '../contract/webhooks.ts';
import type { WebhookEventName } from './outbox.ts';
import { readJob, readMetadata, type TypedJob } from '../jobs/read-job.ts';

/**
 * The kind-specific `data.type` and `data.input` of a payload.
 * - stem: the contract's `{fileName, durationSeconds, fileSizeBytes}` (the billed seconds), no `type`.
 * - video: `type: "video"` and the contract's `{videoTitle, videoDuration, videoUrl, videoVideoId}`.
 * - track: the contract is silent; by analogy with video, `type: "track"` and
 *   `{trackTitle, trackDuration, trackUrl, trackId}`.
 */
function describeInput(job: TypedJob): Pick<WebhookPayloadBody['data'], 'type' | 'input'> {
  switch (job.kind) {
    case 'video': {
      const i = job.input;
      return {
        type: i.via ?? 'video',
        input: {
          videoTitle: i.videoTitle,
          videoDuration: Math.round(i.videoDuration),
          videoUrl: i.videoUrl,
          videoVideoId: i.videoId,
        },
      };
    }
    case 'track': {
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
      };
    }
    default: {
      const { fileName, billedSeconds, fileSizeBytes } = job.input;
      return { input: { fileName, durationSeconds: billedSeconds, fileSizeBytes } };
    }
  }
}

function describeOptions(job: TypedJob): WebhookPayloadBody['data']['options'] {
  // Denoise jobs emit no events (outbox.ts); should one be described, it reads as the defaults.
  if (job.kind === 'denoise') return { outputType: 'BOTH', quality: 'BEST', outputFormat: job.options.outputFormat };
  const { outputType, quality, outputFormat } = job.options;
  return { outputType, quality, outputFormat };
}

/**
 * Builds the contract payload of an event from the job row as it is at delivery time.
 * `status` follows the event (an event describes reaching COMPLETED or FAILED, even if the job has
 * expired since). `outputs` are signed afresh, valid one hour from now; null on `job.failed`, when
 * the outputs are gone, or when signing fails (the event is still worth delivering).
 * `timestamp` is when the event happened (the outbox row's creation), stable across a re-build.
 */
export async function buildWebhookPayload(
  row: JobRow,
  event: WebhookEventName,
  occurredAt: string,
  store: BlobStore,
): Promise<WebhookPayloadBody> {
  let outputs: WebhookPayloadBody['data']['outputs'] = null;
  if (event === 'job.completed') outputs = await signOutputs(store, row).catch(() => null);
  const job = readJob(row);
  const metadata = readMetadata(row);
  return {
    event,
    timestamp: occurredAt,
    data: {
      jobId: row.id,
      status: event === 'job.completed' ? 'COMPLETED' : 'FAILED',
      ...describeInput(job),
      options: describeOptions(job),
      outputs,
      creditsCharged: row.credits_charged ?? 0,
      errorMessage: event === 'job.failed' ? (row.error_message ?? 'the job failed') : null,
      createdAt: row.created_at,
      completedAt: row.completed_at,
      ...(metadata ? { metadata } : {}),
    },
  };
}
