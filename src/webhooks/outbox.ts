import type { DbOrTx } from '../store/schema.ts';
import type { JobKind, WebhookEventName } from '../domain/vocabulary.ts';
import { findJob } from '../store/jobs.ts';
import { insertPendingDeliveries } from '../store/webhook-deliveries.ts';

export type { WebhookEventName } from '../domain/vocabulary.ts';

/**
 * The outbox: called inside the transaction that moves a job to COMPLETED or FAILED, it writes one
 * pending delivery per active webhook of the account subscribed to the event. The job's state and
 * its deliveries commit together, so a crash can never lose the event.
 */
export async function recordJobEvent(tx: DbOrTx, jobId: string, event: WebhookEventName): Promise<number> {
  const job = await findJob(tx, jobId);
  if (!job || !emitsEvents(job.kind)) return 0;
  return insertPendingDeliveries(tx, job.account_id, jobId, event);
}

/**
 * Which job kinds emit webhook events. The contract names stem-separation and video jobs; track
 * jobs are separations too and emit them. Denoise jobs do not: the contract's payload has no
 * denoise shape, and denoise clients poll `/denoise-jobs/{id}` (documented in the README).
 */
export function emitsEvents(kind: JobKind): boolean {
  return kind === 'stem' || kind === 'video' || kind === 'track';
}
