import type { JobRow } from '../../store/jobs.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { signOutputs, DOWNLOAD_URL_TTL_SECONDS } from '../outputs/outputs.ts';
import type { WebhookPayloadBody } from '../../contract/webhooks.ts';
import type { WebhookEventName } from '../../domain/vocabulary.ts';
import { readJob, readMetadata } from '../read-job.ts';
import { presenterOf } from '../present/job-presenters.ts';
import { MAX_SIGNED_URL_SECONDS } from '../../storage/blob-store.ts';

/**
 * How long the output URLs of an event stay valid: until the job's outputs are deleted (its
 * `expiresAt`), at least the contract's hour, at most what a signed URL may last (7 days). The body
 * is made once, when the job's state commits, and re-sent as it is; so its URLs outlive a delivery
 * delayed by a crash or a receiver that is down, as long as the files do.
 */
export function eventUrlSeconds(row: Pick<JobRow, 'expires_at'>, at: Date): number {
  const untilExpiry = row.expires_at ? Math.floor((Date.parse(row.expires_at) - at.getTime()) / 1000) : 0;
  return Math.min(MAX_SIGNED_URL_SECONDS, Math.max(DOWNLOAD_URL_TTL_SECONDS, untilExpiry || 0));
}

/**
 * Builds the contract payload of an event from the job row (as the transaction that ends the job
 * commits it; `outbox.ts` stores it). `status` follows the event (an event describes reaching
 * COMPLETED or FAILED, even if the job has expired since). `outputs` are signed for `urlSeconds`
 * (default one hour); null on `job.failed`, when the outputs are gone, or when signing fails (the
 * event is still worth delivering). `timestamp` is when the event happened.
 */
export async function buildWebhookPayload(
  row: JobRow,
  event: WebhookEventName,
  occurredAt: string,
  blobs: BlobStore,
  urlSeconds = DOWNLOAD_URL_TTL_SECONDS,
): Promise<WebhookPayloadBody> {
  let outputs: WebhookPayloadBody['data']['outputs'] = null;
  if (event === 'job.completed') outputs = await signOutputs(blobs, row, urlSeconds).catch(() => null);
  const job = readJob(row);
  const metadata = readMetadata(row);
  return {
    event,
    timestamp: occurredAt,
    data: {
      jobId: row.id,
      status: event === 'job.completed' ? 'COMPLETED' : 'FAILED',
      // The kind's `type`, `input` and `options` (src/jobs/present/job-presenters.ts).
      ...presenterOf(job).webhook(job),
      outputs,
      creditsCharged: row.credits_charged ?? 0,
      errorMessage: event === 'job.failed' ? (row.error_message ?? 'the job failed') : null,
      createdAt: row.created_at,
      completedAt: row.completed_at,
      ...(metadata ? { metadata } : {}),
    },
  };
}
