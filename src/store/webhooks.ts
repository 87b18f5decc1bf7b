import { sql } from 'kysely';
import type { DbOrTx, WebhooksTable } from './schema.ts';
import { withAccountLock } from './account-lock.ts';
import { generateWebhookSecret, newId } from '../domain/ids.ts';
import { isWebhookEvent, type WebhookEventName } from '../domain/vocabulary.ts';

/** Webhooks per account (contract, "Limits"). Deleted webhooks do not count. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 5;
/** Consecutive failed deliveries after which a webhook is disabled (contract, "Delivery"). */
export const MAX_CONSECUTIVE_FAILURES = 5;

export type WebhookRow = WebhooksTable;

/** What the API and the CLI show of a webhook: everything but the secret. */
export interface WebhookView {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEventName[];
  isActive: boolean;
  failCount: number;
  lastError: string | null;
  lastCalledAt: string | null;
  createdAt: string;
}

export class WebhookLimitError extends Error {}

export function toWebhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: storedEvents(row.events_json),
    isActive: row.is_active === 1,
    failCount: row.fail_count,
    lastError: row.last_error,
    lastCalledAt: row.last_called_at,
    createdAt: row.created_at,
  };
}

/**
 * Creates a webhook with a fresh secret and returns it with the secret: the only time it is seen.
 * The limit check and the insert run under the account's lock (`account-lock.ts`), so racing
 * creations never pass the limit.
 */
export async function createWebhook(
  db: DbOrTx,
  accountId: string,
  input: { url: string; events: WebhookEventName[] },
): Promise<{ webhook: WebhookView; secret: string }> {
  return withAccountLock(db, accountId, async (tx) => {
    const count = await tx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .where('job_id', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new WebhookLimitError(`this account already has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first`);
    }
    const row = newWebhookRow(accountId, input.url, input.events, null);
    await tx.insertInto('webhooks').values(row).execute();
    return { webhook: toWebhookView(row), secret: row.secret };
  });
}

/** The account's webhooks (not deleted), oldest first. */
export async function listWebhooks(db: DbOrTx, accountId: string): Promise<WebhookView[]> {
  const rows = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('job_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toWebhookView);
}

/** Any webhook row by id, deleted or not (the dispatcher needs the secret and the state). */
export async function findWebhook(db: DbOrTx, id: string): Promise<WebhookRow | null> {
  return (await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/**
 * Soft-deletes one of the account's webhooks; false when it does not exist, belongs to another
 * account or is already deleted. The row stays so deliveries already queued for it are skipped
 * (never orphaned); the dispatcher checks `deleted_at` before every send.
 */
export async function deleteWebhook(db: DbOrTx, accountId: string, id: string): Promise<boolean> {
  const r = await db
    .updateTable('webhooks')
    .set({ deleted_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('job_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Re-enables a webhook (the contract's "re-enable in the dashboard"): active again, failCount 0,
 * lastError cleared. Used by `stemforge webhooks enable` and meant for a dashboard. Returns null for
 * an unknown or deleted webhook.
 */
export async function enableWebhook(db: DbOrTx, id: string): Promise<WebhookView | null> {
  const r = await db
    .updateTable('webhooks')
    .set({ is_active: 1, fail_count: 0, last_error: null })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  const row = await findWebhook(db, id);
  return row ? toWebhookView(row) : null;
}

/**
 * Records the outcome of one delivery attempt on the webhook, atomically in SQL so concurrent
 * deliveries never lose an increment.
 * - success: failCount 0, lastCalledAt now. lastError is kept as history (the contract resets only
 *   failCount on success; re-enabling is what clears lastError); failCount 0 says the webhook is healthy.
 * - failure: failCount + 1, lastError, lastCalledAt now; reaching MAX_CONSECUTIVE_FAILURES sets
 *   isActive false.
 */
export async function recordDeliveryOutcome(
  db: DbOrTx,
  id: string,
  outcome: { ok: boolean; error: string | null },
  at = new Date(),
): Promise<void> {
  const now = at.toISOString();
  if (outcome.ok) {
    await db.updateTable('webhooks').set({ fail_count: 0, last_called_at: now }).where('id', '=', id).execute();
    return;
  }
  await db
    .updateTable('webhooks')
    .set({
      fail_count: sql`fail_count + 1`,
      last_error: (outcome.error ?? 'delivery failed').slice(0, 1000),
      last_called_at: now,
      is_active: sql`case when fail_count + 1 >= ${MAX_CONSECUTIVE_FAILURES} then 0 else is_active end`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * A job's `callbackUrl`: a webhook bound to that job (both events), written in the job's creating
 * transaction, so its event goes through the same outbox, signing and SSRF guard as any webhook.
 * It is never listed, counted against the limit or deletable through `/webhooks`.
 */
export async function createJobCallback(
  db: DbOrTx,
  accountId: string,
  jobId: string,
  url: string,
): Promise<{ id: string; secret: string }> {
  const row = newWebhookRow(accountId, url, ['job.completed', 'job.failed'], jobId);
  await db.insertInto('webhooks').values(row).execute();
  return { id: row.id, secret: row.secret };
}

/** A new, active webhook row with a fresh secret; `jobId` binds it to one job (a callback). */
function newWebhookRow(accountId: string, url: string, events: string[], jobId: string | null): WebhookRow {
  return {
    id: newId('wh'),
    account_id: accountId,
    url,
    events_json: JSON.stringify(events),
    secret: generateWebhookSecret(),
    is_active: 1,
    fail_count: 0,
    last_error: null,
    last_called_at: null,
    created_at: new Date().toISOString(),
    deleted_at: null,
    job_id: jobId,
  };
}

/** The stored event list; a name this version does not know (a row written by a newer one) is left out. */
function storedEvents(eventsJson: string): WebhookEventName[] {
  const parsed: unknown = JSON.parse(eventsJson);
  return Array.isArray(parsed) ? parsed.filter(isWebhookEvent) : [];
}
