import type { DbOrTx } from '../store/schema.ts';
import { newId } from '../domain/ids.ts';

export type WebhookEventName = 'job.completed' | 'job.failed';

/**
 * The outbox: called inside the transaction that moves a job to COMPLETED or FAILED, it writes one
 * pending delivery per active webhook of the account subscribed to the event. The job's state and
 * its deliveries commit together, so a crash can never lose the event; the unique index on
 * (webhook, job, event) means it can never be written twice.
 */
export async function recordJobEvent(tx: DbOrTx, jobId: string, event: WebhookEventName): Promise<number> {
  const job = await tx.selectFrom('jobs').select(['account_id', 'kind']).where('id', '=', jobId).executeTakeFirst();
  if (!job || !emitsEvents(job.kind)) return 0;
  const hooks = await tx
    .selectFrom('webhooks')
    .select(['id', 'events_json'])
    .where('account_id', '=', job.account_id)
    .where('is_active', '=', 1)
    .where('deleted_at', 'is', null)
    .execute();
  const now = new Date().toISOString();
  const rows = hooks
    .filter((h) => (JSON.parse(h.events_json) as string[]).includes(event))
    .map((h) => ({
      id: newId('dlv'),
      webhook_id: h.id,
      job_id: jobId,
      event,
      status: 'pending' as const,
      created_at: now,
      sent_at: null,
      response_status: null,
      error: null,
    }));
  if (rows.length) await tx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.length;
}

/**
 * Which job kinds emit webhook events. The contract names stem-separation and video jobs; track
 * jobs are separations too and emit them. Denoise jobs do not: the contract's payload has no
 * denoise shape, and denoise clients poll `/denoise-jobs/{id}` (documented in the README).
 */
export function emitsEvents(kind: string): boolean {
  return kind === 'stem' || kind === 'video' || kind === 'track';
}
