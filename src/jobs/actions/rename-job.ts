import { ApiError } from '../../domain/errors.ts';
import { renameJob as renameJobRow } from '../../store/job-edits.ts';
import type { Db } from '../../store/schema.ts';

/** Names one of the account's jobs; null goes back to its file name or media title. */
export async function renameJob(db: Db, accountId: string, id: string, name: string | null): Promise<void> {
  if (!(await renameJobRow(db, accountId, id, name))) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
}
