import type { JobRow } from '../../store/jobs.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { signOutputs } from '../outputs/outputs.ts';
import type { WebhookPayloadBody } from '../../contract/webhooks.ts';
import type { WebhookEventName } from './outbox.ts';
import { readJob, readMetadata } from '../read-job.ts';
import { presenterOf } from '../present/job-presenters.ts';

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
