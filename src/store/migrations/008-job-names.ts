import type { Kysely } from 'kysely';

/** The name a person gave a job in the dashboard (null: the file name or the media title shows). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('name', 'text').execute();
}
