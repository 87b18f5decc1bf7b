import type { DbOrTx } from './schema.ts';
import { newId } from '../domain/ids.ts';
import { grantCredits } from './credits.ts';

export interface Account {
  id: string;
  email: string;
  createdAt: string;
}

/** Creates an account with its balance row, granting the free credit; one transaction. */
export async function createAccount(db: DbOrTx, email: string, freeCreditSeconds: number): Promise<Account> {
  const now = new Date().toISOString();
  const account = { id: newId('acct'), email: email.trim().toLowerCase(), created_at: now };
  const run = async (tx: DbOrTx) => {
    await tx.insertInto('accounts').values(account).execute();
    await tx.insertInto('balances').values({ account_id: account.id, balance_seconds: 0, updated_at: now }).execute();
    if (freeCreditSeconds > 0) await grantCredits(tx, account.id, freeCreditSeconds, 'free credit for new accounts');
  };
  if (db.isTransaction) await run(db);
  else await db.transaction().execute(run);
  return { id: account.id, email: account.email, createdAt: now };
}

export async function findAccount(db: DbOrTx, id: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : null;
}

export async function findAccountByEmail(db: DbOrTx, email: string): Promise<Account | null> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : null;
}

export async function listAccounts(db: DbOrTx): Promise<Array<Account & { balanceSeconds: number }>> {
  const rows = await db
    .selectFrom('accounts')
    .innerJoin('balances', 'balances.account_id', 'accounts.id')
    .select(['accounts.id', 'accounts.email', 'accounts.created_at', 'balances.balance_seconds'])
    .orderBy('accounts.created_at')
    .execute();
  return rows.map((r) => ({ id: r.id, email: r.email, createdAt: r.created_at, balanceSeconds: r.balance_seconds }));
}

export async function countAccounts(db: DbOrTx): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
