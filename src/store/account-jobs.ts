import type { DbOrTx } from './schema.ts';
import type { JobRow } from './jobs.ts';

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
