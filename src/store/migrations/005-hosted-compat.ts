import type { Kysely } from 'kysely';

/**
 * Fields hosted-service clients read: the phase behind a job's progress, a failed job's error code,
 * and per-job callbacks (`callbackUrl`), kept as webhooks bound to one job so they share the outbox.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('progress_phase', 'text').execute();
  await db.schema.alterTable('jobs').addColumn('error_code', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('job_id', 'text').execute();
  await db.schema.createIndex('webhooks_job').on('webhooks').column('job_id').execute();
}
