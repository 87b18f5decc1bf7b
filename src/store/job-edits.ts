import { JOB_CANCELLED_CODE } from '../domain/vocabulary.ts';
import type { DbOrTx, JobKind, JobStatusValue } from './schema.ts';
import type { JobRow } from './jobs.ts';

const RUNNING: JobStatusValue[] = ['PENDING', 'PROCESSING'];

/**
 * Cancels a job that is still PENDING or PROCESSING: it becomes FAILED with the phase `cancelled`,
 * and its lease is cleared, so the worker running it finds the job gone at its next heartbeat or
 * progress report and stops. False when the job had already finished (the caller says so).
 */
export async function markCancelled(
  db: DbOrTx,
  id: string,
  at: { now: string; expiresAt: string; message: string },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      status: 'FAILED',
      progress_phase: 'cancelled',
      error_code: JOB_CANCELLED_CODE,
      error_message: at.message,
      completed_at: at.now,
      expires_at: at.expiresAt,
      credits_charged: 0,
      lease_owner: null,
      lease_expires_at: null,
    })
    .where('id', '=', id)
    .where('status', 'in', RUNNING)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Sets (or, with null, clears) the name an account gave its job; false for another account's or an unknown job. */
export async function renameJob(db: DbOrTx, accountId: string, id: string, name: string | null): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ name })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Deletes a finished job's row (its files are the caller's to delete first); false while it still runs. */
export async function deleteFinishedJob(db: DbOrTx, accountId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('jobs')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', 'not in', RUNNING)
    .executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/**
 * What stands before a job in a stage, of every account (the workers are shared): the jobs running
 * in that stage and those waiting ahead of `before` (created before it; every waiting job when
 * null), in the order the workers take them. The queue positions and times left are read from them.
 */
export async function queueAhead(
  db: DbOrTx,
  q: { kinds: JobKind[]; stage: 'download' | 'inference'; before: Pick<JobRow, 'id' | 'created_at'> | null },
): Promise<{ waiting: JobRow[]; running: JobRow[] }> {
  const sameStage = db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', 'in', q.kinds)
    .where('source_key', q.stage === 'download' ? 'is' : 'is not', null);
  const before = q.before;
  const waiting = sameStage.where('status', '=', 'PENDING');
  const [ahead, running] = await Promise.all([
    (before
      ? waiting.where((eb) =>
          eb.or([
            eb('created_at', '<', before.created_at),
            eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)]),
          ]),
        )
      : waiting
    )
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    sameStage.where('status', '=', 'PROCESSING').execute(),
  ]);
  return { waiting: ahead, running };
}

/** Every job of an account (of a kind and status when given), newest first: the dashboard's search reads their titles. */
export async function listAllAccountJobs(
  db: DbOrTx,
  q: { accountId: string; kind?: JobKind; status?: JobStatusValue },
): Promise<JobRow[]> {
  let base = db.selectFrom('jobs').where('account_id', '=', q.accountId);
  if (q.kind) base = base.where('kind', '=', q.kind);
  if (q.status) base = base.where('status', '=', q.status);
  return base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** An account's jobs among `ids` (unknown and other accounts' ids are left out). */
export async function findAccountJobsByIds(db: DbOrTx, accountId: string, ids: string[]): Promise<JobRow[]> {
  return db.selectFrom('jobs').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

/** Which of `ids` are jobs that exist (of any account). */
export async function existingJobIds(db: DbOrTx, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('jobs').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}

/** Whether any job (of any status) has `sourceKey` as its input. */
export async function hasJobWithSource(db: DbOrTx, sourceKey: string): Promise<boolean> {
  return (
    (await db.selectFrom('jobs').select('id').where('source_key', '=', sourceKey).executeTakeFirst()) !== undefined
  );
}
