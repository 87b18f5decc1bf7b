import type { DbOrTx, JobKind, JobStatusValue } from './schema.ts';
import type { JobRow } from './jobs.ts';

export interface AccountJobsQuery {
  accountId: string;
  kind?: JobKind;
  status?: JobStatusValue;
  limit: number;
  offset: number;
}

/** Every kind of the account's jobs in one list, newest first (the dashboard's jobs page). */
export async function listAccountJobs(
  db: DbOrTx,
  q: AccountJobsQuery,
): Promise<{ rows: JobRow[]; total: number; hasMore: boolean }> {
  let base = db.selectFrom('jobs').where('account_id', '=', q.accountId);
  if (q.kind) base = base.where('kind', '=', q.kind);
  if (q.status) base = base.where('status', '=', q.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.n);
  return { rows, total, hasMore: q.offset + rows.length < total };
}

/** One of the account's jobs, whatever its kind; another account's id is null (not found). */
export async function findAnyAccountJob(db: DbOrTx, accountId: string, id: string): Promise<JobRow | null> {
  return (
    (await db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst()) ?? null
  );
}
