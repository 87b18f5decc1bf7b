import type { DbOrTx, JobKind, LedgerKind } from './schema.ts';

export interface LedgerLine {
  id: string;
  kind: LedgerKind;
  seconds: number;
  jobId: string | null;
  jobKind: JobKind | null;
  note: string | null;
  createdAt: string;
}

/** A page of the account's credit ledger, newest first, with the kind of the job each line is for. */
export async function listLedgerPage(
  db: DbOrTx,
  accountId: string,
  limit: number,
  offset: number,
): Promise<{ lines: LedgerLine[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('credit_ledger as l')
      .leftJoin('jobs as j', 'j.id', 'l.job_id')
      .select(['l.id', 'l.kind', 'l.seconds', 'l.job_id', 'l.note', 'l.created_at', 'j.kind as job_kind'])
      .where('l.account_id', '=', accountId)
      .orderBy('l.created_at', 'desc')
      .orderBy('l.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('credit_ledger')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    lines: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      seconds: r.seconds,
      jobId: r.job_id,
      jobKind: r.job_kind ?? null,
      note: r.note,
      createdAt: r.created_at,
    })),
    total: Number(count.n),
  };
}

/**
 * Charged seconds per UTC day since `sinceIso` (inclusive). Timestamps are ISO text, so the first
 * ten characters are the day on both dialects.
 */
export async function chargedSecondsByDay(
  db: DbOrTx,
  accountId: string,
  sinceIso: string,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('credit_ledger')
    .select(['created_at', 'seconds'])
    .where('account_id', '=', accountId)
    .where('kind', '=', 'charge')
    .where('created_at', '>=', sinceIso)
    .execute();
  const days = new Map<string, number>();
  for (const r of rows) days.set(r.created_at.slice(0, 10), (days.get(r.created_at.slice(0, 10)) ?? 0) + r.seconds);
  return days;
}
