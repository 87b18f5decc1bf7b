import type { DbOrTx, JobKind } from './schema.ts';

export interface KindUsage {
  /** Jobs created in the period, and how many of them completed or failed. */
  jobs: number;
  completed: number;
  failed: number;
  /** Seconds charged in the period for jobs of this kind. */
  chargedSeconds: number;
}

export interface AccountUsage {
  chargedSeconds: number;
  grantedSeconds: number;
  deductedSeconds: number;
  byKind: Map<JobKind | 'deleted', KindUsage>;
}

/**
 * An account's usage over [from, to): charges, grants and deductions by when the ledger recorded
 * them, jobs by when they were created. A charge whose job was deleted since counts under `deleted`.
 * Timestamps are ISO text on both dialects, so text comparison is time order.
 */
export async function accountUsage(db: DbOrTx, accountId: string, from: string, to: string): Promise<AccountUsage> {
  const [ledger, jobs] = await Promise.all([
    db
      .selectFrom('credit_ledger as l')
      .leftJoin('jobs as j', 'j.id', 'l.job_id')
      .select(['l.kind', 'j.kind as job_kind'])
      .select((eb) => eb.fn.sum<string | number>('l.seconds').as('seconds'))
      .where('l.account_id', '=', accountId)
      .where('l.kind', 'in', ['charge', 'grant', 'deduct'])
      .where('l.created_at', '>=', from)
      .where('l.created_at', '<', to)
      .groupBy(['l.kind', 'j.kind'])
      .execute(),
    db
      .selectFrom('jobs')
      .select(['kind', 'status'])
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('account_id', '=', accountId)
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .groupBy(['kind', 'status'])
      .execute(),
  ]);
  const usage: AccountUsage = { chargedSeconds: 0, grantedSeconds: 0, deductedSeconds: 0, byKind: new Map() };
  const of = (kind: JobKind | 'deleted') => {
    const found = usage.byKind.get(kind);
    if (found) return found;
    const fresh = { jobs: 0, completed: 0, failed: 0, chargedSeconds: 0 };
    usage.byKind.set(kind, fresh);
    return fresh;
  };
  for (const r of jobs) {
    const u = of(r.kind);
    const n = Number(r.n);
    u.jobs += n;
    if (r.status === 'COMPLETED') u.completed += n;
    else if (r.status === 'FAILED') u.failed += n;
  }
  for (const r of ledger) {
    const seconds = Number(r.seconds ?? 0);
    if (r.kind === 'grant') usage.grantedSeconds += seconds;
    else if (r.kind === 'deduct') usage.deductedSeconds += seconds;
    else {
      usage.chargedSeconds += seconds;
      of(r.job_kind ?? 'deleted').chargedSeconds += seconds;
    }
  }
  return usage;
}
