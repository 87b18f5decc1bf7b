import type { DbOrTx, WebhookDeliveriesTable } from './schema.ts';
import { newId } from '../domain/ids.ts';
import { recordDeliveryOutcome } from './webhooks.ts';

/**
 * The webhook outbox rows (`webhook_deliveries`) and their life cycle:
 *
 *   pending --claim--> sending --finish--> done      (one attempt made; response_status / error kept)
 *                             \--skip----> skipped   (webhook deleted or disabled; nothing sent)
 *   sending (owner died) --sweep--> done with INTERRUPTED_ERROR, counted as a failure, never re-sent
 *
 * `sent_at` is set when a row is claimed: the moment its one attempt began.
 */
export type DeliveryRow = WebhookDeliveriesTable;

export const INTERRUPTED_ERROR = 'delivery interrupted by a restart';

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
export async function claimDelivery(db: DbOrTx, id: string, at = new Date()): Promise<boolean> {
  const r = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', sent_at: at.toISOString() })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** A claimed delivery that will not be sent (webhook deleted or inactive, job gone). */
export async function skipDelivery(db: DbOrTx, id: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'skipped', error: reason })
    .where('id', '=', id)
    .where('status', '=', 'sending')
    .execute();
}

/**
 * Records a finished attempt: the row becomes `done` and the webhook's counters move, in one
 * transaction. Conditional on the row still being `sending`, so an attempt the stale sweep already
 * closed is never counted twice.
 */
export async function finishDelivery(
  db: DbOrTx,
  row: Pick<DeliveryRow, 'id' | 'webhook_id'>,
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
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await recordDeliveryOutcome(tx, row.webhook_id, outcome);
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/**
 * Closes deliveries left `sending` by a process that died mid-attempt (claimed before `cutoff`).
 * Whether the receiver got the request is unknown, so the row is NOT re-sent (an event is never
 * doubled); it is marked done with INTERRUPTED_ERROR and counted as a failed attempt.
 */
export async function closeStaleDeliveries(db: DbOrTx, cutoff: Date): Promise<number> {
  const stale = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'webhook_id'])
    .where('status', '=', 'sending')
    .where('sent_at', '<', cutoff.toISOString())
    .execute();
  let closed = 0;
  for (const row of stale) {
    if (await finishDelivery(db, row, { ok: false, status: null, error: INTERRUPTED_ERROR })) closed++;
  }
  return closed;
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
 * it (inside the transaction that settles the job). The unique index on (webhook, job, event)
 * means it can never be written twice.
 */
export async function insertPendingDeliveries(
  tx: DbOrTx,
  accountId: string,
  jobId: string,
  event: string,
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
