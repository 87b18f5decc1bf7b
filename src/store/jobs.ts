import { sql } from 'kysely';
import type { ProgressPhase } from '../domain/vocabulary.ts';
import type { DbOrTx, JobKind, JobsTable, JobStatusValue } from './schema.ts';

export type JobRow = JobsTable;

/** The columns that differ between new jobs; every other column starts the same for all. */
export type NewJobColumns = Pick<
  JobRow,
  | 'id'
  | 'account_id'
  | 'kind'
  | 'input_json'
  | 'options_json'
  | 'metadata_json'
  | 'source_key'
  | 'duration_seconds'
  | 'credits_required'
  | 'created_at'
>;

/** A new job's row: queued and runnable from its creation, nothing run, charged or produced yet. */
export function newJobRow(columns: NewJobColumns): JobRow {
  return {
    status: 'PENDING',
    progress: 0,
    progress_phase: 'queued',
    credits_charged: 0,
    error_message: null,
    error_code: null,
    outputs_json: null,
    audio_metadata_json: null,
    attempts: 0,
    crashes: 0,
    work_kept: 0,
    kept_at_crash: null,
    stalled_crashes: 0,
    next_attempt_at: columns.created_at,
    lease_owner: null,
    lease_expires_at: null,
    claimed_at: null,
    started_at: null,
    completed_at: null,
    expires_at: null,
    name: null,
    kept_at: null,
    kept_bytes: null,
    ...columns,
  };
}

export async function insertJob(db: DbOrTx, row: JobRow): Promise<void> {
  await db.insertInto('jobs').values(row).execute();
}

/**
 * A job of the given account (and kind, unless null: the dashboard shows every kind), or null:
 * another account's job is reported as not found.
 */
export async function findAccountJob(
  db: DbOrTx,
  accountId: string,
  kind: JobKind | null,
  id: string,
): Promise<JobRow | null> {
  let q = db.selectFrom('jobs').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  if (kind) q = q.where('kind', '=', kind);
  return (await q.executeTakeFirst()) ?? null;
}

export async function findJob(db: DbOrTx, id: string): Promise<JobRow | null> {
  return (await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export interface ListQuery {
  accountId: string;
  /** Every kind when absent (the dashboard's unified list). */
  kind?: JobKind;
  status?: JobStatusValue;
  limit: number;
  offset: number;
}

/** Newest first, with the total and whether more rows follow this page. */
export async function listJobs(db: DbOrTx, q: ListQuery): Promise<{ rows: JobRow[]; total: number; hasMore: boolean }> {
  let base = db.selectFrom('jobs').where('account_id', '=', q.accountId);
  if (q.kind) base = base.where('kind', '=', q.kind);
  if (q.status) base = base.where('status', '=', q.status);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).offset(q.offset).execute(),
    base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.n);
  return { rows, total, hasMore: q.offset + rows.length < total };
}

/**
 * Runnable jobs of a stage: PENDING ones whose retry time has come, and PROCESSING ones whose lease
 * has run out (their worker died).
 */
export async function listRunnableJobs(
  db: DbOrTx,
  kinds: JobKind[],
  stage: 'download' | 'inference',
  limit: number,
): Promise<Array<{ id: string; kind: JobKind }>> {
  const now = new Date().toISOString();
  return (
    db
      .selectFrom('jobs')
      .select(['id', 'kind'])
      .where('kind', 'in', kinds)
      // A job still waiting for its download has no source yet; only then is it download-stage work.
      .where('source_key', stage === 'download' ? 'is' : 'is not', null)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'PENDING'), eb('next_attempt_at', '<=', now)]),
          eb.and([eb('status', '=', 'PROCESSING'), eb('lease_expires_at', '<', now)]),
        ]),
      )
      .orderBy('created_at')
      .limit(limit)
      .execute()
  );
}

/**
 * Claims a job if it is runnable now. The conditional UPDATE makes the claim atomic across
 * processes: two workers never run the same attempt, and a duplicate queue message is harmless.
 * Taking over a PROCESSING job (its lease ran out, or the embedded start released it) means its
 * worker died mid-attempt: that is counted in `crashes`, not `attempts`, so a crash never spends
 * the error retry budget (the attempt is run again under the same number).
 */
export async function claimJob(db: DbOrTx, id: string, owner: string, leaseMs: number): Promise<JobRow | null> {
  const now = new Date();
  const nowIso = now.toISOString();
  const result = await db
    .updateTable('jobs')
    .set({
      status: 'PROCESSING',
      lease_owner: owner,
      lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(),
      attempts: sql`case when status = 'PROCESSING' then attempts else attempts + 1 end`,
      crashes: sql`case when status = 'PROCESSING' then crashes + 1 else crashes end`,
      // A death after the work kept moved past the previous death's place starts the count again.
      stalled_crashes: sql`case when status <> 'PROCESSING' then stalled_crashes
        when work_kept > coalesce(kept_at_crash, -1) then 1 else stalled_crashes + 1 end`,
      kept_at_crash: sql`case when status = 'PROCESSING' then work_kept else kept_at_crash end`,
      claimed_at: nowIso,
      started_at: sql`coalesce(started_at, ${nowIso})`,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'PENDING'), eb('next_attempt_at', '<=', nowIso)]),
        eb.and([eb('status', '=', 'PROCESSING'), eb('lease_expires_at', '<', nowIso)]),
      ]),
    )
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  return findJob(db, id);
}

/** Extends a lease; false when the job is no longer this worker's (reclaimed or finished). */
export async function renewLease(db: DbOrTx, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ lease_expires_at: new Date(Date.now() + leaseMs).toISOString() })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'PROCESSING')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Reports a running job's progress and phase. Progress is only ever raised (monotonic even across
 * retries); the phase is what the job does now. False when the job is no longer PROCESSING (it was
 * cancelled): its worker stops.
 */
export async function reportProgress(db: DbOrTx, id: string, progress: number, phase: ProgressPhase): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set((eb) => ({
      progress: eb.case().when('progress', '<', progress).then(progress).else(eb.ref('progress')).end(),
      progress_phase: phase,
    }))
    .where('id', '=', id)
    .where('status', '=', 'PROCESSING')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Moves a job this worker holds to another state, with extra column updates; false when the worker
 * no longer holds it (so the caller must not move credits or emit events).
 */
export async function transitionHeldJob(
  db: DbOrTx,
  id: string,
  owner: string,
  set: Partial<JobRow> & { status: JobStatusValue },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ ...set, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'PROCESSING')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Embedded mode only (one process owns the database): jobs left PROCESSING by a previous run of
 * this process are made claimable at once instead of waiting for their lease to run out.
 */
export async function releaseOrphanedLeases(db: DbOrTx): Promise<number> {
  const r = await db
    .updateTable('jobs')
    .set({ lease_expires_at: new Date(0).toISOString() })
    .where('status', '=', 'PROCESSING')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Jobs to expire: finished, with retention ended, not kept by their owner. */
export async function listExpiredJobs(db: DbOrTx, nowIso: string, limit = 100): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('status', 'in', ['COMPLETED', 'FAILED'])
    .where('expires_at', '<', nowIso)
    .where('kept_at', 'is', null)
    .limit(limit)
    .execute();
}

export async function markExpired(db: DbOrTx, id: string): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({ status: 'EXPIRED', outputs_json: null, progress_phase: 'expired' })
    .where('id', '=', id)
    .where('status', 'in', ['COMPLETED', 'FAILED'])
    .where('kept_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Recent completed jobs of these kinds, newest first: what the pace of each tier is measured on. */
export async function recentCompletedJobs(db: DbOrTx, kinds: JobKind[], limit: number): Promise<JobRow[]> {
  return db
    .selectFrom('jobs')
    .selectAll()
    .where('kind', 'in', kinds)
    .where('status', '=', 'COMPLETED')
    .where('started_at', 'is not', null)
    .orderBy('completed_at', 'desc')
    .limit(limit)
    .execute();
}

/** Records what a job was charged (inside the transaction that settles it). */
export async function setCreditsCharged(db: DbOrTx, id: string, charged: number): Promise<void> {
  await db.updateTable('jobs').set({ credits_charged: charged }).where('id', '=', id).execute();
}

/** Whether an unfinished job still reads this stored input. */
export async function isSourceInUse(db: DbOrTx, sourceKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('id')
    .where('source_key', '=', sourceKey)
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .executeTakeFirst();
  return Boolean(row);
}
