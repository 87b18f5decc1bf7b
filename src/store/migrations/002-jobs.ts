import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('input_json', 'text', (c) => c.notNull())
    .addColumn('options_json', 'text', (c) => c.notNull())
    .addColumn('metadata_json', 'text')
    .addColumn('source_key', 'text')
    .addColumn('duration_seconds', 'double precision')
    .addColumn('credits_required', 'integer')
    .addColumn('credits_charged', 'integer')
    .addColumn('error_message', 'text')
    .addColumn('outputs_json', 'text')
    .addColumn('audio_metadata_json', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('expires_at', 'text')
    .execute();
  await db.schema
    .createIndex('jobs_account_kind_created')
    .on('jobs')
    .columns(['account_id', 'kind', 'created_at'])
    .execute();
  await db.schema.createIndex('jobs_status_next').on('jobs').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('jobs_expires').on('jobs').columns(['status', 'expires_at']).execute();
}
