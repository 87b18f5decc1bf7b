import { findAccountJobsByIds } from '../../store/job-edits.ts';
import type { JobRow } from '../../store/jobs.ts';
import type { Db } from '../../store/schema.ts';
import { presenterOf } from './job-presenters.ts';
import { readJob } from '../read-job.ts';

/** The title a person knows a job by: the name they gave it, else its kind's title (file name, media title). */
export function jobTitle(row: JobRow): string {
  if (row.name) return row.name;
  const job = readJob(row);
  return presenterOf(job).title(job);
}

/** Titles of an account's jobs by id, for lists that name jobs (ledger, deliveries); deleted jobs are absent. */
export async function jobTitles(db: Db, accountId: string, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  const rows = wanted.length ? await findAccountJobsByIds(db, accountId, wanted) : [];
  return new Map(rows.map((r) => [r.id, jobTitle(r)]));
}
