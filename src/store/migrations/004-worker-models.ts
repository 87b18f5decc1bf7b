import type { Kysely } from 'kysely';

/** The models each worker process has, so that scale-out API processes offer only what a live worker can run. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_models')
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('worker_models_pk', ['worker_id', 'model'])
    .execute();
  await db.schema
    .createIndex('worker_models_model_seen')
    .on('worker_models')
    .columns(['model', 'last_seen_at'])
    .execute();
}
