import type { Kysely } from 'kysely';

/**
 * Deaths counted where they happen (issue 40), so a long job that resumes from its checkpoints
 * survives many deaths while a poison input still fails after JOB_MAX_CRASHES:
 * - `jobs.work_kept`: how far the running stage's work is kept by a checkpoint (separation: segments
 *   finished and saved); only raised;
 * - `jobs.kept_at_crash`: `work_kept` when the job's last death was taken over;
 * - `jobs.stalled_crashes`: deaths since the work kept last moved past the place of the previous one.
 * Added only, with defaults: the previous release writes rows without them and ignores them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('work_kept', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('jobs').addColumn('kept_at_crash', 'integer').execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('stalled_crashes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
