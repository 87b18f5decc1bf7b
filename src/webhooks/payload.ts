import type { JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { signOutputs } from '../jobs/outputs.ts';
import type { WebhookPayloadBody } from '../contract/webhooks.ts';
import type { WebhookEventName } from './outbox.ts';

type Json = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null);

/**
 * The kind-specific `data.type` and `data.input` of a payload.
 * - stem: the contract's `{fileName, durationSeconds, fileSizeBytes}`, no `type`.
 * - video: `type: "video"` and the contract's `{videoTitle, videoDuration, videoUrl, videoVideoId}`,
 *   read from the video job's input_json `{videoId, videoTitle, videoDuration, videoUrl, ...}`.
 * - track: the contract is silent; by analogy with video, `type: "track"` and
 *   `{trackTitle, trackDuration, trackUrl, trackId}` from input_json's fields of the same names.
 */
function describeInput(row: JobRow): Pick<WebhookPayloadBody['data'], 'type' | 'input'> {
  const i = JSON.parse(row.input_json) as Json;
  if (row.kind === 'video') {
    return {
      type: 'video',
      input: {
        videoTitle: str(i.videoTitle),
        videoDuration: int(i.videoDuration),
        videoUrl: str(i.videoUrl),
        videoVideoId: str(i.videoId),
      },
    };
  }
  if (row.kind === 'track') {
    return {
      type: 'track',
      input: {
        trackTitle: str(i.trackTitle),
        trackDuration: int(i.trackDuration ?? row.duration_seconds),
        trackUrl: str(i.trackUrl),
        trackId: str(i.trackId),
      },
    };
  }
  return {
    input: {
      fileName: str(i.fileName) ?? 'audio',
      durationSeconds: int(i.durationSeconds) ?? int(row.duration_seconds) ?? 0,
      fileSizeBytes: int(i.fileSizeBytes) ?? 0,
    },
  };
}

function describeOptions(row: JobRow): WebhookPayloadBody['data']['options'] {
  const o = JSON.parse(row.options_json) as Json;
  // Video and track jobs default to vocals + instrumental, BEST, MP3 (contract), should a field be absent.
  return {
    outputType: (o.outputType ?? 'BOTH') as WebhookPayloadBody['data']['options']['outputType'],
    quality: (o.quality ?? 'BEST') as WebhookPayloadBody['data']['options']['quality'],
    outputFormat: (o.outputFormat ?? 'MP3') as WebhookPayloadBody['data']['options']['outputFormat'],
  };
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
  if (event === 'job.completed') outputs = await signOutputs(store, row.outputs_json).catch(() => null);
  const metadata = row.metadata_json ? (JSON.parse(row.metadata_json) as Json) : undefined;
  return {
    event,
    timestamp: occurredAt,
    data: {
      jobId: row.id,
      status: event === 'job.completed' ? 'COMPLETED' : 'FAILED',
      ...describeInput(row),
      options: describeOptions(row),
      outputs,
      creditsCharged: row.credits_charged ?? 0,
      errorMessage: event === 'job.failed' ? (row.error_message ?? 'the job failed') : null,
      createdAt: row.created_at,
      completedAt: row.completed_at,
      ...(metadata ? { metadata } : {}),
    },
  };
}
