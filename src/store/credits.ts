import { sql } from 'kysely';
import type { DbOrTx, LedgerKind } from './schema.ts';
import { newId } from '../domain/ids.ts';

/**
 * The credit ledger. Every movement appends a ledger row and adjusts the cached balance row in
 * the same transaction (callers pass their transaction). The balance row has a CHECK (>= 0) and
 * holds use a conditional UPDATE, so two racing holds that only one can afford never both succeed,
 * on SQLite and on PostgreSQL alike.
 */

async function append(
  db: DbOrTx,
  accountId: string,
  kind: LedgerKind,
  seconds: number,
  delta: number,
  jobId: string | null,
  note: string | null,
): Promise<void> {
  await db
    .insertInto('credit_ledger')
    .values({
      id: newId('led'),
      account_id: accountId,
      kind,
      seconds,
      delta_seconds: delta,
      job_id: jobId,
      note,
      created_at: new Date().toISOString(),
    })
    .execute();
}

/**
 * The most a grant may take a balance to: 31 million years of audio, so a balance, a hold given
 * back on top of it and any sum of them stay whole and exact in JavaScript's numbers and in
 * PostgreSQL's double precision columns (below 2^53; migration 012 says why not bigint).
 */
export const MAX_BALANCE_SECONDS = 1_000_000_000_000_000;

/** A grant would take the balance above MAX_BALANCE_SECONDS. */
export class BalanceLimitError extends Error {}

/** Moves the balance by `delta`; false when that would overdraw it (or, with `cap`, pass the cap). */
async function adjust(db: DbOrTx, accountId: string, delta: number, cap?: number): Promise<boolean> {
  let update = db
    .updateTable('balances')
    .set({ balance_seconds: sql`balance_seconds + ${delta}`, updated_at: new Date().toISOString() })
    .where('account_id', '=', accountId)
    .where('balance_seconds', '>=', -delta);
  if (cap !== undefined) update = update.where('balance_seconds', '<=', cap - delta);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function grantCredits(
  db: DbOrTx,
  accountId: string,
  seconds: number,
  note: string | null = null,
): Promise<void> {
  if (!Number.isInteger(seconds) || seconds <= 0) throw new Error('a grant must be a positive whole number of seconds');
  if (!(await adjust(db, accountId, seconds, MAX_BALANCE_SECONDS))) {
    if ((await getBalance(db, accountId)) === null) throw new Error(`unknown account ${accountId}`);
    throw new BalanceLimitError(`the balance would pass ${MAX_BALANCE_SECONDS} s`);
  }
  await append(db, accountId, 'grant', seconds, seconds, null, note);
}

/**
 * Takes up to `seconds` back from the available balance (an admin's negative grant), never below
 * zero; returns what was taken. The conditional UPDATE refuses to overdraw, so a hold that races it
 * makes it read the balance again.
 */
export async function deductCredits(db: DbOrTx, accountId: string, seconds: number, note: string): Promise<number> {
  if (!Number.isInteger(seconds) || seconds <= 0)
    throw new Error('a deduction must be a positive whole number of seconds');
  for (;;) {
    const take = Math.min(seconds, await getBalanceSeconds(db, accountId));
    if (take === 0) return 0;
    if (await adjust(db, accountId, -take)) {
      await append(db, accountId, 'deduct', take, -take, null, note);
      return take;
    }
  }
}

/** Holds credits for a job. Returns false (and changes nothing) when the balance does not cover them. */
export async function holdCredits(db: DbOrTx, accountId: string, seconds: number, jobId: string): Promise<boolean> {
  if (!(await adjust(db, accountId, -seconds))) return false;
  await append(db, accountId, 'hold', seconds, -seconds, jobId, null);
  return true;
}

/** Seconds still held for a job: holds minus what was charged against them or released. */
export async function heldForJob(db: DbOrTx, jobId: string): Promise<number> {
  const rows = await db
    .selectFrom('credit_ledger')
    .select(['kind', 'seconds', 'delta_seconds'])
    .where('job_id', '=', jobId)
    .execute();
  let held = 0;
  for (const r of rows) {
    if (r.kind === 'hold') held += r.seconds;
    else if (r.kind === 'release') held -= r.seconds;
    else if (r.kind === 'charge') held -= r.seconds + r.delta_seconds; // the part of the charge taken from the hold
  }
  return Math.max(0, held);
}

export interface Settlement {
  charged: number;
  released: number;
  /** Seconds the job cost beyond its hold that the balance could not cover (written off). */
  uncovered: number;
}

/**
 * Turns a job's hold into a charge of `finalSeconds`: the unused part of the hold is released; a
 * cost beyond the hold is taken from the balance as far as it reaches, and the rest is written
 * off (recorded in the ledger note) rather than failing a job whose work is done.
 * Call once per job, inside the transaction that moves the job to its terminal state.
 */
export async function chargeHold(
  db: DbOrTx,
  accountId: string,
  jobId: string,
  finalSeconds: number,
): Promise<Settlement> {
  const held = await heldForJob(db, jobId);
  if (finalSeconds <= held) {
    const released = held - finalSeconds;
    if (released > 0) {
      await adjust(db, accountId, released);
      await append(db, accountId, 'release', released, released, jobId, 'unused part of the hold');
    }
    await append(db, accountId, 'charge', finalSeconds, 0, jobId, null);
    return { charged: finalSeconds, released, uncovered: 0 };
  }
  const extra = finalSeconds - held;
  const balance = await getBalanceSeconds(db, accountId);
  const covered = Math.min(extra, balance);
  if (covered > 0) await adjust(db, accountId, -covered);
  const uncovered = extra - covered;
  const note = uncovered > 0 ? `cost exceeded the hold by ${extra} s; ${uncovered} s not covered by the balance` : null;
  await append(db, accountId, 'charge', held + covered, -covered, jobId, note);
  return { charged: held + covered, released: 0, uncovered };
}

/** Releases whatever is still held for a job (failure, cancellation). */
export async function releaseHold(
  db: DbOrTx,
  accountId: string,
  jobId: string,
  note: string | null = null,
): Promise<number> {
  const held = await heldForJob(db, jobId);
  if (held > 0) {
    await adjust(db, accountId, held);
    await append(db, accountId, 'release', held, held, jobId, note);
  }
  return held;
}

export async function getBalanceSeconds(db: DbOrTx, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('balances')
    .select('balance_seconds')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.balance_seconds ?? 0;
}

export async function getBalance(
  db: DbOrTx,
  accountId: string,
): Promise<{ seconds: number; updatedAt: string } | null> {
  const row = await db.selectFrom('balances').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  return row ? { seconds: row.balance_seconds, updatedAt: row.updated_at } : null;
}

export async function listLedger(db: DbOrTx, accountId: string) {
  return db.selectFrom('credit_ledger').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}
