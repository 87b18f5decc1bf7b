import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 43 (practice mode):
 * - `jobs.kept_at`, `jobs.kept_bytes`: a job its owner keeps past the retention time (the sweeper
 *   skips it) and the bytes its files took when kept, which count against the account's limit
 *   (`KEEP_LIMIT_MB`); null when not kept. 64-bit on PostgreSQL, as every size is (migration 012);
 * - `player_settings`: the stem player's settings of one job for one account (tempo, pitch, mute,
 *   solo, volumes, loop, click) as JSON, so any device shows them. Removed with the job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const wide = db.getExecutor().adapter instanceof PostgresAdapter ? 'bigint' : 'integer';
  await db.schema.alterTable('jobs').addColumn('kept_at', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('kept_bytes', wide).execute();
  await db.schema
    .createTable('player_settings')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('settings_json', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('player_settings_pk', ['account_id', 'job_id'])
    .execute();
  await db.schema.createIndex('player_settings_job').on('player_settings').column('job_id').execute();
  await db.schema.createIndex('jobs_account_kept').on('jobs').columns(['account_id', 'kept_at']).execute();
}
