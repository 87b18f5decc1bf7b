import type { DbOrTx } from '../../store/schema.ts';
import type { WebhookEventName } from '../../domain/vocabulary.ts';
import { kindSpec } from '../../domain/job-kinds.ts';
import { findJob } from '../../store/jobs.ts';
import { insertPendingDeliveries } from '../../store/webhook-deliveries.ts';

export type { WebhookEventName } from '../../domain/vocabulary.ts';

/**
 * The outbox: called inside the transaction that moves a job to COMPLETED or FAILED, it writes one
 * pending delivery per active webhook of the account subscribed to the event, when the job's kind
 * emits events (`emitsEvents` in `src/domain/job-kinds.ts`). The job's state and its deliveries
 * commit together, so a crash can never lose the event.
 */
export async function recordJobEvent(tx: DbOrTx, jobId: string, event: WebhookEventName): Promise<number> {
  const job = await findJob(tx, jobId);
  if (!job || !kindSpec(job.kind).emitsEvents) return 0;
  return insertPendingDeliveries(tx, job.account_id, jobId, event);
}
