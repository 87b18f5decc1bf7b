import { listAllAccountJobs } from '../store/job-edits.ts';
import { type JobRow, type ListQuery, listJobs } from '../store/jobs.ts';
import type { Db } from '../store/schema.ts';
import { jobTitle } from './present/job-title.ts';

/**
 * A page of an account's jobs, newest first; with `q`, only those whose title (the name given, else
 * the file name or the media title) contains it, ignoring case. A title is the kind's reading of
 * its stored input (`jobTitle`), not a column, so a search reads the account's jobs and matches in
 * this process: a few milliseconds for thousands of jobs, and never a title that went stale (a
 * track's is known only after its download).
 */
export async function searchJobs(
  db: Db,
  query: ListQuery & { q?: string },
): Promise<{ rows: JobRow[]; total: number; hasMore: boolean }> {
  const { q, ...list } = query;
  const words = q?.toLocaleLowerCase().split(/\s+/).filter(Boolean) ?? [];
  if (words.length === 0) return listJobs(db, list);
  const all = await listAllAccountJobs(db, list);
  const matching = all.filter((row) => {
    const title = jobTitle(row).toLocaleLowerCase();
    return words.every((w) => title.includes(w));
  });
  const rows = matching.slice(list.offset, list.offset + list.limit);
  return { rows, total: matching.length, hasMore: list.offset + rows.length < matching.length };
}
