import type { DbOrTx, WebhookDeliveriesTable } from './schema.ts';
import { newId } from '../domain/ids.ts';
import { recordDeliveryOutcome } from './webhooks.ts';

/**
 * The webhook outbox rows (`webhook_deliveries`) and their life cycle:
 *
 *   pending --claim--> sending --finish--> done      (one attempt made; response_status / error kept)
 *                             \--skip----> skipped   (webhook deleted or disabled; nothing sent)
 *   sending (claimer died) --requeue--> pending      (our crash, not the receiver's failure: sent again)
 *
 * `sent_at` is set when a row is claimed (the moment its attempt began), `claimed_by` names the
 * process that claimed it.
 */
export type DeliveryRow = WebhookDeliveriesTable;

/** Pending deliveries, oldest first. */
export async function listPendingDeliveries(db: DbOrTx, limit: number): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Claims a pending delivery for sending. The conditional UPDATE is the lock: of two dispatchers
 * (or two processes) racing for a row exactly one sees one updated row, the other skips it.
 */
export async function claimDelivery(db: DbOrTx, id: string, owner: string, at = new Date()): Promise<boolean> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', sent_at: at.toISOString(), claimed_by: owner })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A claimed delivery that will not be sent (webhook deleted or inactive, job gone). */
export async function skipDelivery(db: DbOrTx, id: string, owner: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'skipped', error: reason })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .where('claimed_by', '=', owner)
    .execute();
}

/**
 * Records a finished attempt: the row becomes `done` and the webhook's counters move, in one
 * transaction. Conditional on the row still being `sending` under this claim, so an attempt that was
 * requeued meanwhile (and perhaps claimed again) is never recorded over.
 */
export async function finishDelivery(
  db: DbOrTx,
  row: Pick<DeliveryRow, 'id' | 'webhook_id'>,
  owner: string,
  outcome: { ok: boolean; status: number | null; error: string | null; durationMs?: number },
): Promise<boolean> {
  const run = async (tx: DbOrTx) => {
    const r = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'done',
        response_status: outcome.status,
        error: outcome.error?.slice(0, 1000) ?? null,
        duration_ms: outcome.durationMs ?? null,
      })
      .where('id', '=', row.id)
      .where('status', '=', 'sending')
      .where('claimed_by', '=', owner)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await recordDeliveryOutcome(tx, row.webhook_id, outcome);
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Which `sending` rows were claimed by a process that is gone: those claimed before `claimedBefore`
 * (a live attempt ends within the webhook timeout, which the caller's cutoff exceeds), and, when
 * `deadOwnersBut` is given, every row not claimed by that process (the embedded start: the one
 * process that sends webhooks on this database is starting, so any other claimer is dead).
 */
export interface DeadClaims {
  claimedBefore: Date;
  deadOwnersBut?: string;
}

/**
 * Puts deliveries whose claimer died mid-attempt (our crash) back to `pending`, so they are sent
 * again; the webhook's counters are not touched: a crash of ours is not a receiver failure. The
 * receiver may have got the cut request already; the repeat is byte-identical (same body, same
 * signature, same `X-Webhook-Id` and event), which is how it tells one (docs/webhooks.md).
 */
export async function requeueDeadClaims(db: DbOrTx, dead: DeadClaims): Promise<number> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', sent_at: null, claimed_by: null })
    .where('status', '=', 'sending')
    .where((eb) => {
      const old = eb('sent_at', '<', dead.claimedBefore.toISOString());
      if (dead.deadOwnersBut === undefined) return old;
      return eb.or([old, eb('claimed_by', 'is', null), eb('claimed_by', '!=', dead.deadOwnersBut)]);
    })
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Deliveries of a job, for operators and tests. */
export async function listJobDeliveries(db: DbOrTx, jobId: string): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * Writes one pending delivery of `event` for `jobId` per active webhook of `accountId` subscribed to
 * it (inside the transaction that settles the job), each with the event's body, which `payload` makes
 * (only when some webhook is subscribed) from the time the event happened. The unique index on
 * (webhook, job, event) means it can never be written twice.
 */
export async function insertPendingDeliveries(
  tx: DbOrTx,
  accountId: string,
  jobId: string,
  event: string,
  payload: (occurredAt: string) => Promise<string | null>,
): Promise<number> {
  const hooks = await tx
    .selectFrom('webhooks')
    .select(['id', 'events_json'])
    .where('account_id', '=', accountId)
    .where('is_active', '=', 1)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('job_id', 'is', null), eb('job_id', '=', jobId)]))
    .execute();
  const now = new Date().toISOString();
  const subscribed = hooks.filter((h) => (JSON.parse(h.events_json) as string[]).includes(event));
  const body = subscribed.length > 0 ? await payload(now) : null;
  const rows = subscribed.map((h) => ({
    id: newId('dlv'),
    webhook_id: h.id,
    job_id: jobId,
    event,
    status: 'pending' as const,
    created_at: now,
    sent_at: null,
    response_status: null,
    error: null,
    payload: body,
  }));
  if (rows.length) await tx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.length;
}

/** The most recent deliveries to one webhook, newest first (dashboard). */
export async function listWebhookDeliveries(db: DbOrTx, webhookId: string, limit = 50): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The `event` of a test delivery sent from the dashboard (its `job_id` is the test payload's `test_` id). */
export const TEST_EVENT = 'test';

/**
 * Records a test event already sent, so it is listed among the deliveries: written `done` at once,
 * so no dispatcher ever picks it up, and not counted in the webhook's failures (a test must neither
 * disable nor re-enable a webhook).
 */
export async function recordTestDelivery(
  db: DbOrTx,
  d: { webhookId: string; testId: string; at: string; status: number | null; error: string | null; durationMs: number },
): Promise<void> {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: newId('dlv'),
      webhook_id: d.webhookId,
      job_id: d.testId,
      event: TEST_EVENT,
      status: 'done',
      created_at: d.at,
      sent_at: d.at,
      response_status: d.status,
      error: d.error?.slice(0, 1000) ?? null,
      duration_ms: d.durationMs,
    })
    .execute();
}
