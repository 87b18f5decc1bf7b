import type { DbOrTx, SessionsTable } from './schema.ts';

export type SessionRow = SessionsTable;

/** Dashboard sessions (docs/dashboard.md). Rows are keyed by the SHA-256 of the cookie's token. */
export async function insertSession(db: DbOrTx, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The live session with this id, or null (unknown or past its expiry). */
export async function findLiveSession(db: DbOrTx, id: string, now: Date): Promise<SessionRow | null> {
  return (
    (await db
      .selectFrom('sessions')
      .selectAll()
      .where('id', '=', id)
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst()) ?? null
  );
}

/** Slides the idle expiry forward. */
export async function touchSession(db: DbOrTx, id: string, now: Date, expiresAt: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ last_seen_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .where('id', '=', id)
    .execute();
}

export async function deleteSession(db: DbOrTx, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute();
}

/** Ends every session of the account except `keepId` (after a password change); returns how many. */
export async function deleteOtherSessions(db: DbOrTx, accountId: string, keepId: string | null): Promise<number> {
  let q = db.deleteFrom('sessions').where('account_id', '=', accountId);
  if (keepId) q = q.where('id', '!=', keepId);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Removes expired rows; called now and then by sign-in so the table does not grow forever. */
export async function deleteExpiredSessions(db: DbOrTx, now: Date): Promise<number> {
  const r = await db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}
