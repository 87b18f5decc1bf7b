import type { DbOrTx, JobKind } from './schema.ts';

export interface StageQueueStats {
  /** Jobs runnable now that no worker holds (PENDING and due). */
  waiting: number;
  /** Jobs PENDING until a retry's back-off ends. */
  delayed: number;
  /** Jobs a worker holds now. */
  active: number;
  /** When the longest-waiting runnable job became runnable (ISO), or null when none waits. */
  oldestWaitingSince: string | null;
}

/**
 * What one stage's queue holds, read from the jobs table (the source of truth in both deployments;
 * BullMQ's own counts would include the duplicate messages the workers' re-offer scan adds). A job
 * without a stored source is download-stage work, as in `listRunnableJobs`.
 */
export async function stageQueueStats(
  db: DbOrTx,
  kinds: JobKind[],
  stage: 'download' | 'inference',
  nowIso: string,
): Promise<StageQueueStats> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => [
      'status',
      eb.fn.countAll<number | string | bigint>().as('n'),
      eb.fn
        .sum<number | string | bigint | null>(eb.case().when('next_attempt_at', '>', nowIso).then(1).else(0).end())
        .as('later'),
    ])
    .where('kind', 'in', kinds)
    .where('source_key', stage === 'download' ? 'is' : 'is not', null)
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .groupBy('status')
    .execute();
  const stats: StageQueueStats = { waiting: 0, delayed: 0, active: 0, oldestWaitingSince: null };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.status === 'PROCESSING') {
      stats.active = n;
      continue;
    }
    stats.delayed = Number(row.later ?? 0);
    stats.waiting = n - stats.delayed;
  }
  if (stats.waiting > 0) stats.oldestWaitingSince = await oldestDue(db, kinds, stage, nowIso);
  return stats;
}

async function oldestDue(
  db: DbOrTx,
  kinds: JobKind[],
  stage: 'download' | 'inference',
  nowIso: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('next_attempt_at').as('oldest'))
    .where('kind', 'in', kinds)
    .where('source_key', stage === 'download' ? 'is' : 'is not', null)
    .where('status', '=', 'PENDING')
    .where('next_attempt_at', '<=', nowIso)
    .executeTakeFirst();
  return row?.oldest ?? null;
}

/** Live scale-out workers (seen since `sinceIso`) and how many of them have each model. */
export async function liveWorkerModels(
  db: DbOrTx,
  sinceIso: string,
): Promise<{ workers: number; byModel: Map<string, number> }> {
  const rows = await db
    .selectFrom('worker_models')
    .select(['worker_id', 'model'])
    .where('last_seen_at', '>=', sinceIso)
    .execute();
  const byModel = new Map<string, number>();
  for (const r of rows) byModel.set(r.model, (byModel.get(r.model) ?? 0) + 1);
  return { workers: new Set(rows.map((r) => r.worker_id)).size, byModel };
}
