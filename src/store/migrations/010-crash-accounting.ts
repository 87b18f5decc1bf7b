import type { Kysely } from 'kysely';

/**
 * Crash accounting (issue 29):
 * - `jobs.crashes`: attempts cut by a process dying (lease taken over), counted apart from
 *   `attempts` (errors), so a crash never spends the error retry budget and has its own bound;
 * - `jobs.claimed_at`: when the current lease was taken, so what a dead worker started before it
 *   (an S3 multipart upload of the same key) is told apart from the live attempt's;
 * - `webhook_deliveries.claimed_by`: the process that claimed a delivery, so a start can tell an
 *   attempt cut by our own crash (sent again, not counted against the receiver) from a live one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('crashes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('claimed_at', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_by', 'text').execute();
}
