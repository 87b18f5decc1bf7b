import type { DbOrTx } from './schema.ts';

/** The stored password hash of the account with this email (null hash: no dashboard password yet). */
export async function findCredentials(
  db: DbOrTx,
  email: string,
): Promise<{ id: string; email: string; passwordHash: string | null; disabled: boolean; isAdmin: boolean } | null> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'email', 'password_hash', 'disabled_at', 'is_admin'])
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row
    ? {
        id: row.id,
        email: row.email,
        passwordHash: row.password_hash,
        disabled: row.disabled_at !== null,
        isAdmin: row.is_admin === 1,
      }
    : null;
}

export async function findPasswordHash(db: DbOrTx, accountId: string): Promise<string | null> {
  const row = await db.selectFrom('accounts').select('password_hash').where('id', '=', accountId).executeTakeFirst();
  return row?.password_hash ?? null;
}

/** Sets the hash; false when no such account. */
export async function setPasswordHash(db: DbOrTx, accountId: string, hash: string): Promise<boolean> {
  const r = await db
    .updateTable('accounts')
    .set({ password_hash: hash })
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
