import { sql } from 'kysely';
import type { DbOrTx } from './schema.ts';
import { type Account, toAccount } from './accounts.ts';

export interface AccountListItem extends Account {
  balanceSeconds: number;
  activeKeys: number;
}

/** `%`, `_` and the escape itself match literally in a LIKE pattern (ESCAPE '\'). */
const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A page of accounts, oldest first, for the admin API and pages: those whose email contains `q`
 * (emails are stored lower-case, so the match ignores case on both dialects).
 */
export async function listAccountPage(
  db: DbOrTx,
  opts: { q?: string; id?: string; limit: number; offset: number },
): Promise<{ accounts: AccountListItem[]; total: number }> {
  const pattern = opts.q ? `%${likeLiteral(opts.q.trim().toLowerCase())}%` : null;
  let rows = db
    .selectFrom('accounts')
    .innerJoin('balances', 'balances.account_id', 'accounts.id')
    .selectAll('accounts')
    .select('balances.balance_seconds')
    .select((eb) =>
      eb
        .selectFrom('api_keys')
        .select((k) => k.fn.countAll<string | number>().as('n'))
        .whereRef('api_keys.account_id', '=', 'accounts.id')
        .where('api_keys.revoked_at', 'is', null)
        .as('active_keys'),
    );
  let count = db.selectFrom('accounts').select((eb) => eb.fn.countAll<string | number>().as('n'));
  if (opts.id) {
    rows = rows.where('accounts.id', '=', opts.id);
    count = count.where('id', '=', opts.id);
  }
  if (pattern) {
    rows = rows.where(sql<boolean>`accounts.email like ${pattern} escape '\\'`);
    count = count.where(sql<boolean>`email like ${pattern} escape '\\'`);
  }
  const [page, total] = await Promise.all([
    rows.orderBy('accounts.created_at').orderBy('accounts.id').limit(opts.limit).offset(opts.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return {
    accounts: page.map((r) => ({
      ...toAccount(r),
      balanceSeconds: r.balance_seconds,
      activeKeys: Number(r.active_keys ?? 0),
    })),
    total: Number(total.n),
  };
}

/** Disables (or enables) an account; null when there is no such account. Repeating it is harmless. */
export async function setAccountDisabled(db: DbOrTx, id: string, disabled: boolean): Promise<Account | null> {
  const now = new Date().toISOString();
  await db
    .updateTable('accounts')
    .set({ disabled_at: disabled ? sql<string>`coalesce(disabled_at, ${now})` : null })
    .where('id', '=', id)
    .execute();
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAccount(row) : null;
}

/** Makes an account an admin or not; false when there is no such account. */
export async function setAccountAdmin(db: DbOrTx, id: string, admin: boolean): Promise<boolean> {
  const r = await db
    .updateTable('accounts')
    .set({ is_admin: admin ? 1 : 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
