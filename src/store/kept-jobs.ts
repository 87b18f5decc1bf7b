import type { DbOrTx } from './schema.ts';

/** What an account keeps past retention: how many jobs, and the bytes they took when kept. */
export async function keptUsage(db: DbOrTx, accountId: string): Promise<{ jobs: number; bytes: number }> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => [
      eb.fn.countAll<number | string | bigint>().as('n'),
      eb.fn.sum<number | string | bigint | null>('kept_bytes').as('bytes'),
    ])
    .where('account_id', '=', accountId)
    .where('kept_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return { jobs: Number(row.n), bytes: Number(row.bytes ?? 0) };
}

/**
 * Marks a completed job kept, only while its retention has not ended (`expires_at` after `nowIso`):
 * a job the sweeper may be deleting now cannot be kept. False when not so.
 */
export async function markKept(
  db: DbOrTx,
  accountId: string,
  id: string,
  at: { keptAt: string; bytes: number; nowIso: string },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ kept_at: at.keptAt, kept_bytes: at.bytes })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', '=', 'COMPLETED')
    .where('expires_at', '>', at.nowIso)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Returns a kept job to retention: it expires at `expiresAt`. False when it was not kept. */
export async function unmarkKept(db: DbOrTx, accountId: string, id: string, expiresAt: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ kept_at: null, kept_bytes: null, expires_at: expiresAt })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('kept_at', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
