import type { AccountsTable, DbOrTx } from './schema.ts';
import { newId } from '../domain/ids.ts';
import { grantCredits } from './credits.ts';

export interface Account {
  id: string;
  email: string;
  createdAt: string;
  /** An operator: reaches the admin API and pages. */
  isAdmin: boolean;
  /** When an admin disabled it; null while it is enabled. */
  disabledAt: string | null;
}

/** Another account already has this email (the unique index said so, races included). */
export class EmailTakenError extends Error {}

/**
 * Creates an account with its balance row, granting the free credit; one transaction. The first
 * account of an instance is its admin.
 */
export async function createAccount(db: DbOrTx, email: string, freeCreditSeconds: number): Promise<Account> {
  const now = new Date().toISOString();
  const base = { id: newId('acct'), email: email.trim().toLowerCase(), created_at: now, disabled_at: null };
  let isAdmin = false;
  const run = async (tx: DbOrTx) => {
    isAdmin = (await tx.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) === undefined;
    try {
      await tx
        .insertInto('accounts')
        .values({ ...base, is_admin: isAdmin ? 1 : 0 })
        .execute();
    } catch (err) {
      if (isUniqueViolation(err)) throw new EmailTakenError(`an account with email ${base.email} already exists`);
      throw err;
    }
    await tx.insertInto('balances').values({ account_id: base.id, balance_seconds: 0, updated_at: now }).execute();
    if (freeCreditSeconds > 0) await grantCredits(tx, base.id, freeCreditSeconds, 'free credit for new accounts');
  };
  if (db.isTransaction) await run(db);
  else await db.transaction().execute(run);
  return { id: base.id, email: base.email, createdAt: now, isAdmin, disabledAt: null };
}

/** SQLite's and PostgreSQL's words for a unique index refusing a row. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function toAccount(row: AccountsTable): Account {
  return {
    id: row.id,
    email: row.email,
    createdAt: row.created_at,
    isAdmin: row.is_admin === 1,
    disabledAt: row.disabled_at,
  };
}

export async function findAccount(db: DbOrTx, id: string): Promise<Account | null> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAccount(row) : null;
}

export async function findAccountByEmail(db: DbOrTx, email: string): Promise<Account | null> {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row ? toAccount(row) : null;
}

export async function listAccounts(db: DbOrTx): Promise<Array<Account & { balanceSeconds: number }>> {
  const rows = await db
    .selectFrom('accounts')
    .innerJoin('balances', 'balances.account_id', 'accounts.id')
    .selectAll('accounts')
    .select('balances.balance_seconds')
    .orderBy('accounts.created_at')
    .execute();
  return rows.map((r) => ({ ...toAccount(r), balanceSeconds: r.balance_seconds }));
}

export async function countAccounts(db: DbOrTx): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
