import type { DbOrTx } from './schema.ts';

/** The stored settings JSON of one job's player for one account, or null. */
export async function findPlayerSettings(db: DbOrTx, accountId: string, jobId: string): Promise<string | null> {
  const row = await db
    .selectFrom('player_settings')
    .select('settings_json')
    .where('account_id', '=', accountId)
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return row?.settings_json ?? null;
}

/** Writes (or replaces) the settings of one job's player for one account. */
export async function savePlayerSettings(
  db: DbOrTx,
  row: { accountId: string; jobId: string; json: string; at: string },
): Promise<void> {
  await db
    .insertInto('player_settings')
    .values({ account_id: row.accountId, job_id: row.jobId, settings_json: row.json, updated_at: row.at })
    .onConflict((oc) =>
      oc.columns(['account_id', 'job_id']).doUpdateSet({ settings_json: row.json, updated_at: row.at }),
    )
    .execute();
}

/** Removes a job's player settings (with the job). */
export async function deletePlayerSettings(db: DbOrTx, jobId: string): Promise<void> {
  await db.deleteFrom('player_settings').where('job_id', '=', jobId).execute();
}
