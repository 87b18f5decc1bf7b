import type { DbOrTx } from './schema.ts';

/**
 * Takes the account row's write lock for the rest of the transaction: a no-op UPDATE. A count limit
 * (5 active API keys, 5 webhooks) checks and inserts after it, so on PostgreSQL two racing
 * creations of one account run one after the other and a sixth can never slip in; SQLite
 * serialises write transactions anyway. Call it inside a transaction.
 */
export async function lockAccountRow(tx: DbOrTx, accountId: string): Promise<void> {
  await tx
    .updateTable('accounts')
    .set((eb) => ({ email: eb.ref('email') }))
    .where('id', '=', accountId)
    .execute();
}

/** Runs `work` in a transaction holding the account's lock (inside the caller's, when given one). */
export async function withAccountLock<T>(db: DbOrTx, accountId: string, work: (tx: DbOrTx) => Promise<T>): Promise<T> {
  const run = async (tx: DbOrTx) => {
    await lockAccountRow(tx, accountId);
    return work(tx);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}
