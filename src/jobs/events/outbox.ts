import type { DbOrTx } from '../../store/schema.ts';
import type { WebhookEventName } from '../../domain/vocabulary.ts';
import { kindSpec } from '../../domain/job-kinds.ts';
import { findJob } from '../../store/jobs.ts';
import { insertPendingDeliveries } from '../../store/webhook-deliveries.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { buildWebhookPayload, eventUrlSeconds } from './webhook-payload.ts';

/**
 * The outbox: called inside the transaction that moves a job to COMPLETED or FAILED, it writes one
 * pending delivery per active webhook of the account subscribed to the event, when the job's kind
 * emits events (`emitsEvents` in `src/domain/job-kinds.ts`). The job's state and its deliveries
 * commit together, so a crash can never lose the event. The event's body is made here, once, from
 * the row as it commits (output URLs signed to last as long as the outputs), and stored with each
 * delivery: every send of it, a re-send after our crash included, is the same bytes.
 */
export async function recordJobEvent(
  tx: DbOrTx,
  blobs: BlobStore,
  jobId: string,
  event: WebhookEventName,
): Promise<number> {
  const job = await findJob(tx, jobId);
  if (!job || !kindSpec(job.kind).emitsEvents) return 0;
  return insertPendingDeliveries(tx, job.account_id, jobId, event, async (occurredAt) => {
    try {
      const urlSeconds = eventUrlSeconds(job, new Date(occurredAt));
      return JSON.stringify(await buildWebhookPayload(job, event, occurredAt, blobs, urlSeconds));
    } catch {
      // Never fail the job's transaction for its event: the body is built at send time instead.
      return null;
    }
  });
}
