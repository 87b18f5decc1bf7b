import type { Config } from '../config.ts';
import { type AccountUsageBody, type AdminAccountBody, MAX_GRANT_SECONDS } from '../contract/admin.ts';
import { formatBalance, wholeMinutes } from '../domain/credits.ts';
import { ApiError } from '../domain/errors.ts';
import { setPasswordHash } from '../store/account-passwords.ts';
import { createAccount, findAccount, findAccountByEmail } from '../store/accounts.ts';
import { type AccountListItem, listAccountPage, setAccountDisabled } from '../store/admin-accounts.ts';
import { createApiKey } from '../store/api-keys.ts';
import { deductCredits, getBalance, grantCredits } from '../store/credits.ts';
import type { Db } from '../store/schema.ts';
import { accountUsage } from '../store/usage.ts';
import { hashPassword } from './password.ts';

/**
 * What an admin does to accounts, for the admin API (`src/http/routes/admin.ts`) and the dashboard's admin
 * pages alike: both check that the caller is an admin before calling these.
 */
export interface AdminDeps {
  db: Db;
  config: Pick<Config, 'limits'>;
}

const DAY_MS = 86_400_000;
const USAGE_DEFAULT_DAYS = 30;

export function presentAccount(a: AccountListItem): AdminAccountBody {
  return {
    id: a.id,
    email: a.email,
    isAdmin: a.isAdmin,
    disabled: a.disabledAt !== null,
    disabledAt: a.disabledAt,
    balanceSeconds: a.balanceSeconds,
    activeKeys: a.activeKeys,
    createdAt: a.createdAt,
  };
}

/** One account as the list shows it; 404 ACCOUNT_NOT_FOUND when there is none. */
export async function readAccount(db: Db, id: string): Promise<AdminAccountBody> {
  const [item] = (await listAccountPage(db, { id, limit: 1, offset: 0 })).accounts;
  if (!item) throw new ApiError('ACCOUNT_NOT_FOUND', `No account '${id}'.`);
  return presentAccount(item);
}

export async function listAccountsForAdmin(db: Db, query: { q?: string | undefined; limit: number; offset: number }) {
  const { accounts, total } = await listAccountPage(db, {
    ...(query.q ? { q: query.q } : {}),
    limit: query.limit,
    offset: query.offset,
  });
  return {
    accounts: accounts.map(presentAccount),
    pagination: {
      total,
      limit: query.limit,
      offset: query.offset,
      hasMore: query.offset + accounts.length < total,
    },
  };
}

/**
 * A new account with the free credit every new account gets (FREE_CREDIT_SECONDS) and, given a
 * password, a dashboard sign-in. 409 EMAIL_TAKEN for an email already in use.
 */
export async function createAccountAsAdmin(
  deps: AdminDeps,
  body: { email: string; password?: string | undefined },
): Promise<AdminAccountBody> {
  if (await findAccountByEmail(deps.db, body.email)) throw new ApiError('EMAIL_TAKEN');
  // Hashed before the transaction: scrypt takes ~0.1 s and should not hold a write lock.
  const hash = body.password ? await hashPassword(body.password) : null;
  const account = await deps.db.transaction().execute(async (tx) => {
    const a = await createAccount(tx, body.email, deps.config.limits.freeCreditSeconds);
    if (hash) await setPasswordHash(tx, a.id, hash);
    return a;
  });
  return readAccount(deps.db, account.id);
}

/**
 * Adds `seconds` of credit (or takes them back when negative, never below zero: the answer says
 * how much moved), recorded in the ledger with the note; answers the new balance.
 */
export async function grantAsAdmin(db: Db, accountId: string, seconds: number, note: string) {
  if (!(await findAccount(db, accountId))) throw new ApiError('ACCOUNT_NOT_FOUND', `No account '${accountId}'.`);
  if (!Number.isInteger(seconds) || seconds === 0 || Math.abs(seconds) > MAX_GRANT_SECONDS) {
    throw new ApiError('VALIDATION_ERROR', 'seconds must be a whole number other than 0.', { field: 'seconds' });
  }
  const applied = await db.transaction().execute(async (tx) => {
    if (seconds > 0) {
      await grantCredits(tx, accountId, seconds, note);
      return seconds;
    }
    return -(await deductCredits(tx, accountId, -seconds, note));
  });
  const balance = await getBalance(db, accountId);
  const left = balance?.seconds ?? 0;
  return {
    accountId,
    appliedSeconds: applied,
    balanceSeconds: left,
    balanceMinutes: wholeMinutes(left),
    balanceFormatted: formatBalance(left),
    updatedAt: balance?.updatedAt ?? new Date().toISOString(),
  };
}

/** A new API key for the account, returned in clear this once (stored as its hash). */
export async function createKeyAsAdmin(db: Db, accountId: string, name: string | null) {
  if (!(await findAccount(db, accountId))) throw new ApiError('ACCOUNT_NOT_FOUND', `No account '${accountId}'.`);
  // Past the limit: KeyLimitError, answered API_KEY_LIMIT_REACHED (src/http/error-table.ts).
  const { key, info } = await createApiKey(db, accountId, name);
  return { id: info.id, accountId, name: info.name, prefix: info.prefix, key, createdAt: info.createdAt };
}

/** Disables or enables an account. An admin cannot disable their own account (another admin can). */
export async function setDisabledAsAdmin(
  db: Db,
  adminId: string,
  accountId: string,
  disabled: boolean,
): Promise<AdminAccountBody> {
  if (disabled && adminId === accountId) throw new ApiError('CANNOT_DISABLE_SELF');
  if (!(await setAccountDisabled(db, accountId, disabled))) {
    throw new ApiError('ACCOUNT_NOT_FOUND', `No account '${accountId}'.`);
  }
  return readAccount(db, accountId);
}

/** A day (`2026-11-01`) means its start, UTC. */
const instant = (value: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);

/** Usage over [from, to): default the 30 days up to now. */
export async function usageAsAdmin(
  db: Db,
  accountId: string,
  query: { from?: string | undefined; to?: string | undefined },
): Promise<AccountUsageBody> {
  if (!(await findAccount(db, accountId))) throw new ApiError('ACCOUNT_NOT_FOUND', `No account '${accountId}'.`);
  const to = query.to ? instant(query.to) : new Date();
  const from = query.from ? instant(query.from) : new Date(to.getTime() - USAGE_DEFAULT_DAYS * DAY_MS);
  if (!(from.getTime() < to.getTime())) {
    throw new ApiError('VALIDATION_ERROR', "Invalid query: 'from' must be before 'to'.", { field: 'from' });
  }
  const usage = await accountUsage(db, accountId, from.toISOString(), to.toISOString());
  return {
    accountId,
    from: from.toISOString(),
    to: to.toISOString(),
    chargedSeconds: usage.chargedSeconds,
    grantedSeconds: usage.grantedSeconds,
    deductedSeconds: usage.deductedSeconds,
    byKind: Object.fromEntries(usage.byKind),
  };
}
